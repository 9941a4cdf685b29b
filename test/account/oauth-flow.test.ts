import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser } from 'playwright-core';
import { storePhoto } from '../../services/scan/photo-intake.ts';
import { accountClient } from '../support/bearer.ts';
import { launchBrowser } from '../support/browser.ts';
import {
  connectWithOAuth,
  interceptRedirect,
  MemoryOAuthClient,
  REDIRECT_URI,
} from '../support/oauth-client.ts';
import { authorizeUrl, decodeJwt, pkce, register, token } from '../support/oauth-http.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

describe('signing in to /mcp/account', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  let browser: Browser;

  before(async () => {
    stack = await startSignInStack('oauth-flow', ['Alpha', 'Beta']);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  const countAccounts = async () =>
    Number((await stack.orm.em.getConnection().execute('select count(*) as n from accounts'))[0]?.n);

  /** A fresh authorization request of a registered public client, opened in a new browser page. */
  async function openAuthorization() {
    const client = (await register(stack.baseUrl, { client_name: 'Helpful Agent' })).body;
    const { challenge } = pkce();
    const url = authorizeUrl(stack.baseUrl, {
      client_id: client.client_id,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    const arrived = interceptRedirect(page);
    const response = await page.goto(url.href);
    return { page, context, arrived, response };
  }

  for (const method of ['none', 'client_secret_basic', 'client_secret_post'] as const) {
    it(`the MCP SDK client end to end with ${method}: 401, metadata, registration, PKCE, upstream sign-in, consent, token, tool call`, async () => {
      const oauth = new MemoryOAuthClient(method);
      const client: Client = await connectWithOAuth(browser, stack.baseUrl, oauth, {
        provider: 'Alpha',
        login: `alice-${method}`,
      });
      try {
        const registered = oauth.client as { token_endpoint_auth_method?: string; client_secret?: string };
        assert.equal(registered.token_endpoint_auth_method, method);
        assert.equal(Boolean(registered.client_secret), method !== 'none');
        assert.equal(oauth.authorizationUrl?.searchParams.get('code_challenge_method'), 'S256');
        assert.equal(oauth.authorizationUrl?.searchParams.get('resource'), `${stack.baseUrl}/mcp/account`);
        assert.equal(decodeJwt(oauth.savedTokens!.access_token).header.typ, 'at+jwt');
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

  it('the provider choice page offers both providers by name; the consent page lists each scope in plain words and names the return host', async () => {
    const { page, context, response } = await openAuthorization();
    try {
      assert.equal(await page.title(), 'Sign in to skinmatch');
      assertPageHeaders(response!.headers());
      assert.match(
        (await page.textContent('body')) ?? '',
        /Helpful Agent asks to use skinmatch on your behalf/,
      );
      const links = await page.getByRole('link').allTextContents();
      assert.deepEqual(links, ['Continue with Alpha', 'Continue with Beta']);
      await page.getByRole('link', { name: 'Continue with Beta' }).click();
      await page.getByLabel('Name').fill('bea');
      const consent = page.waitForResponse(
        (r) => r.url().startsWith(stack.baseUrl) && /^\/interaction\/[\w-]+$/.test(new URL(r.url()).pathname),
      );
      await page.getByRole('button', { name: 'Sign in' }).click();
      assertPageHeaders((await consent).headers());
      assert.equal(await page.title(), 'Allow access?');
      // The nonce lets the page's own style in: it is applied.
      assert.equal(await page.evaluate('getComputedStyle(document.body).maxWidth'), '512px');
      assert.deepEqual(await page.locator('#scopes li').allTextContents(), [
        'See the scans in your account and their scores',
        'Start skin scans for you and save them to your account',
        'Look up products and ingredients in the catalog',
      ]);
      // Any client may call itself anything: the page names where the approval goes.
      assert.equal(
        await page.locator('#return').textContent(),
        `If you allow, you go back to ${new URL(REDIRECT_URI).host}, which gets this access. The name above is what the application calls itself.`,
      );
    } finally {
      await context.close();
    }
  });

  it('declining sends the person back to the client with access_denied', async () => {
    const { page, context, arrived } = await openAuthorization();
    try {
      await page.getByRole('link', { name: 'Continue with Alpha' }).click();
      await page.getByLabel('Name').fill('dora');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Decline' }).click();
      const back = await arrived;
      assert.equal(back.origin + back.pathname, REDIRECT_URI);
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('error_description'), 'The person declined the request.');
      assert.equal(back.searchParams.get('code'), null);
    } finally {
      await context.close();
    }
  });

  for (const login of ['anonymous', 'firebase-anonymous']) {
    it(`an anonymous upstream identity (${login}) is refused and creates no account`, async () => {
      const before = await countAccounts();
      const { page, context } = await openAuthorization();
      try {
        await page.getByRole('link', { name: 'Continue with Alpha' }).click();
        await page.getByLabel('Name').fill(login);
        const response = page.waitForResponse((r) => r.url().includes('/oauth/callback/1'));
        await page.getByRole('button', { name: 'Sign in' }).click();
        assert.equal((await response).status(), 403);
        assert.equal(await page.title(), 'You are not signed in');
        assert.match((await page.textContent('#description')) ?? '', /^Alpha signed you in anonymously/);
        assert.equal(await countAccounts(), before);
      } finally {
        await context.close();
      }
    });
  }

  it('delete_my_service_data deletes everything about the account, answers what, and leaves the bearer dead', async () => {
    const oauth = new MemoryOAuthClient('client_secret_post');
    const client = await connectWithOAuth(browser, stack.baseUrl, oauth, {
      provider: 'Beta',
      login: 'leaver',
    });
    const accountId = decodeJwt(oauth.savedTokens!.access_token).payload.sub as string;
    const started = await client.callTool({ name: 'start_skin_scan', arguments: { source: 'to delete' } });
    const runId = (started.structuredContent as { run_id: string }).run_id;
    await storePhoto(stack.orm.em.fork(), runId, new Uint8Array([0xff, 0xd8, 0xff]), 'image/jpeg');
    await client.callTool({ name: 'start_skin_scan', arguments: { source: 'another' } });

    const result = await client.callTool({ name: 'delete_my_service_data', arguments: {} });
    assert.equal(result.isError, undefined);
    const { deleted } = result.structuredContent as { deleted: Record<string, number> };
    assert.equal(deleted.accounts, 1);
    assert.equal(deleted.identities, 1);
    assert.equal(deleted.scans, 2);
    assert.equal(deleted.photos, 1);
    assert.ok((deleted.grants ?? 0) >= 1, JSON.stringify(deleted));
    assert.ok((deleted.tokens ?? 0) >= 1, JSON.stringify(deleted));

    // No row of any table refers to the account any more.
    const connection = stack.orm.em.getConnection();
    const tables = await connection.execute<{ table_name: string }[]>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of tables) {
      const rows = await connection.execute(
        `select count(*) as n from "${table_name}" t where t::text like ?`,
        [`%${accountId}%`],
      );
      assert.equal(Number(rows[0]?.n), 0, `${table_name} still refers to the account`);
    }
    const scanRows = await connection.execute('select count(*) as n from scans where id = ?', [runId]);
    assert.equal(Number(scanRows[0]?.n), 0);

    // The bearer is dead at once, and the refresh token with it.
    await assert.rejects(client.callTool({ name: 'list_my_scans', arguments: {} }));
    const res = await fetch(`${stack.baseUrl}/mcp/account`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${oauth.savedTokens!.access_token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    const registered = oauth.client as { client_id: string; client_secret: string };
    const refresh = await token(stack.baseUrl, {
      grant_type: 'refresh_token',
      refresh_token: oauth.savedTokens!.refresh_token!,
      client_id: registered.client_id,
      client_secret: registered.client_secret,
    });
    assert.equal(refresh.status, 400);
    assert.equal(refresh.body?.error, 'invalid_grant');

    // Deleting again deletes nothing and still succeeds (idempotent), as internal systems may retry.
    const again = await accountClient(stack.coreUrl).deleteAccountData({ accountId });
    assert.deepEqual(
      [again.accounts, again.identities, again.scans, again.photos, again.grants, again.tokens],
      [0, 0, 0, 0, 0, 0],
    );
    await client.close();
  });
});
