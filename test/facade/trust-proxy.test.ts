/**
 * Behind a proxy (TRUST_PROXY), the client address is the X-Forwarded-For entry the configured number of
 * proxies from the right, so a client cannot escape its rate limit by writing the header itself.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../../services/shared/config.ts';
import { errorCode, JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

async function listScansAs(stack: Stack, forwardedFor: string) {
  const res = await fetch(`${stack.baseUrl}/mcp`, {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'start_skin_scan', arguments: { source: 'proxy' } },
    }),
  });
  return errorCode(((await res.json()) as any).result);
}

for (const hops of [1, 2]) {
  describe(`TRUST_PROXY with ${hops} proxies in front`, () => {
    let stack: Stack;
    // What the proxies append: the client address as the first proxy saw it, then each further proxy's view.
    const chain = (client: string) => [client, ...Array.from({ length: hops - 1 }, () => '10.0.0.1')];

    before(async () => {
      stack = await startStack(`trust-proxy-${hops}`, {
        limits: { callsPerMinute: 2, scansPerHour: 100 },
        facade: { trustProxy: true, trustedProxyHops: hops },
      });
    });
    after(() => stack?.close());

    it('a client rotating its own X-Forwarded-For entries stays within its limit', async () => {
      const outcomes = [];
      for (let i = 0; i < 6; i++) {
        const header = [`198.51.100.${i}`, ...chain('203.0.113.7')].join(', ');
        outcomes.push(await listScansAs(stack, header));
      }
      assert.deepEqual(outcomes, [undefined, undefined, ...Array(4).fill('rate_limited')]);
    });

    it('different real clients behind the proxy each have their own budget', async () => {
      for (const client of ['203.0.113.20', '203.0.113.21']) {
        assert.equal(await listScansAs(stack, chain(client).join(', ')), undefined);
        assert.equal(await listScansAs(stack, chain(client).join(', ')), undefined);
        assert.equal(await listScansAs(stack, chain(client).join(', ')), 'rate_limited');
      }
    });

    it('an entry with a port (as Azure Application Gateway writes it) counts for its address', async () => {
      const spell = [
        ['203.0.113.30:40001', '203.0.113.30:40002', '203.0.113.30'],
        ['[2001:db8:0:7::1]:443', '[2001:db8:0:7::2]', '2001:db8:0:7::3'],
        ['::ffff:203.0.113.31', '[::ffff:203.0.113.31]:51234', '203.0.113.31:1'],
      ];
      for (const entries of spell) {
        const outcomes = [];
        for (const entry of entries) outcomes.push(await listScansAs(stack, chain(entry).join(', ')));
        assert.deepEqual(outcomes, [undefined, undefined, 'rate_limited'], entries.join(' '));
      }
    });

    it("an entry that is no address counts for the socket's address, with one warning", async () => {
      const outcomes = [];
      for (const entry of ['unknown', 'garbage-1', 'garbage-2']) {
        outcomes.push(await listScansAs(stack, chain(entry).join(', ')));
      }
      assert.deepEqual(outcomes, [undefined, undefined, 'rate_limited']);
      // The logger's stream is asynchronous: up to 10 s, as late as a loaded machine writes (was 100 × 20 ms).
      let warnings: any[] = [];
      for (const deadline = Date.now() + 10_000; warnings.length === 0 && Date.now() < deadline; ) {
        await new Promise((r) => setTimeout(r, 20));
        warnings = (await readFile(stack.logFile, 'utf8'))
          .split('\n')
          .slice(0, -1) // what follows the last newline is a line still being written
          .filter((line) => line.includes('is not an IP address'))
          .map((line) => JSON.parse(line));
      }
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0].forwarded, 'unknown');
      assert.equal(warnings[0].socket, '127.0.0.1');
    });
  });
}

describe('TRUST_PROXY configuration', () => {
  for (const [value, hops] of [
    [undefined, 0],
    ['false', 0],
    ['true', 1],
    ['2', 2],
  ] as const) {
    it(`${value} → ${hops} proxies`, () => {
      assert.equal(loadConfig({ TRUST_PROXY: value, TOKEN_PEPPER: 'a'.repeat(64) }).trustedProxyHops, hops);
    });
  }

  it('anything else stops the start with a clear error', () => {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: 'yes', TOKEN_PEPPER: 'a'.repeat(64) }),
      /TRUST_PROXY: got "yes", expected false, true or a number of proxies/,
    );
  });
});
