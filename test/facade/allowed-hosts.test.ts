/**
 * The DNS-rebinding protection of the MCP endpoints compares hosts as names of a server, not as strings:
 * `Host: skin.example.com:443` (what Go's net/http sends for an endpoint configured as
 * `https://skin.example.com:443/mcp`), a fully qualified name's trailing dot and capitals name the service's
 * own host; another host, or another port, is still 403.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const PUBLIC_HOST = 'skin.example.com';

/** A tools/list on /mcp with the given Host (and Origin); answers the HTTP status. */
function listWith(stack: Stack, host: string, origin?: string): Promise<number> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/mcp',
        method: 'POST',
        headers: { ...JSON_RPC_HEADERS, host, ...(origin ? { origin } : {}) },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  });
}

describe('allowed hosts of the MCP endpoints', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('allowed-hosts', { facade: { allowedHosts: [PUBLIC_HOST, 'localhost:8080'] } });
  });
  after(() => stack?.close());

  for (const host of [
    PUBLIC_HOST,
    `${PUBLIC_HOST}:443`,
    `${PUBLIC_HOST}:80`,
    `${PUBLIC_HOST}.`,
    `SKIN.Example.COM.:443`,
    'localhost:8080',
  ]) {
    it(`Host: ${host} → served`, async () => {
      assert.equal(await listWith(stack, host), 200);
    });
  }

  for (const host of [
    'evil.example',
    `${PUBLIC_HOST}.evil.example`,
    `evil.${PUBLIC_HOST}`,
    `${PUBLIC_HOST}:8443`,
    `${PUBLIC_HOST}..`,
    'localhost',
    'localhost:443',
  ]) {
    it(`Host: ${host} → 403`, async () => {
      assert.equal(await listWith(stack, host), 403);
    });
  }

  it("the service's own Origin with a default port or a trailing dot is its own; another's is 403", async () => {
    assert.equal(await listWith(stack, PUBLIC_HOST, `https://${PUBLIC_HOST}:443`), 200);
    assert.equal(await listWith(stack, PUBLIC_HOST, `https://${PUBLIC_HOST}.`), 200);
    assert.equal(await listWith(stack, PUBLIC_HOST, 'https://evil.example'), 403);
    assert.equal(await listWith(stack, PUBLIC_HOST, `https://${PUBLIC_HOST}:8443`), 403);
  });
});
