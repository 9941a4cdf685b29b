import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser } from 'playwright-core';
import { freePort } from '../../scripts/port.ts';
import { launchBrowser } from '../support/browser.ts';
import { connectWithOAuth, MemoryOAuthClient } from '../support/oauth-client.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { type RunningUpstream, startUpstream } from '../support/upstream.ts';

describe('the MCP SDK client signs in to /mcp/account through the authorization server', function () {
  this.timeout(60_000);
  let stack: Stack;
  let upstreams: RunningUpstream[];
  let browser: Browser;

  before(async () => {
    const port = await freePort();
    upstreams = await Promise.all([startUpstream('1', 'Alpha', port), startUpstream('2', 'Beta', port)]);
    stack = await startStack('oauth-flow', { port, upstreams: upstreams.map((u) => u.provider) });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    await Promise.all(upstreams?.map((u) => u.close()) ?? []);
  });

  for (const method of ['none', 'client_secret_basic', 'client_secret_post'] as const) {
    it(`end to end with client authentication ${method}: registration, PKCE, upstream sign-in, consent, token, tool call`, async () => {
      const oauth = new MemoryOAuthClient(method);
      const client: Client = await connectWithOAuth(browser, stack.baseUrl, oauth, {
        provider: 'Alpha',
        login: `alice-${method}`,
      });
      try {
        assert.equal(oauth.client?.token_endpoint_auth_method, method);
        assert.equal(Boolean((oauth.client as { client_secret?: string }).client_secret), method !== 'none');
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'delete_my_service_data'));
        const started = await client.callTool({
          name: 'start_skin_scan',
          arguments: { source: 'oauth test' },
        });
        assert.equal(started.isError, undefined);
        const listed = await client.callTool({ name: 'list_my_scans', arguments: {} });
        const scans = (listed.structuredContent as { scans: { run_id: string }[] }).scans;
        assert.deepEqual(
          scans.map((s) => s.run_id),
          [(started.structuredContent as { run_id: string }).run_id],
        );
      } finally {
        await client.close();
      }
    });
  }
});
