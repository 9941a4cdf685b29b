import assert from 'node:assert/strict';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { ACCOUNT_PURGE_TASK } from '../../services/account/account-purge.ts';
import { browserSuite } from '../support/browser.ts';
import { consentedScan, holdConsentCookie } from '../support/consent.ts';
import { callTool } from '../support/mcp.ts';
import { authorizeInBrowser, interceptRedirect, REDIRECT_URI } from '../support/oauth-client.ts';
import { authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Signing in creates the account before the person consents or saves (F1). Whoever then declines, closes
 * the page or never saves must leave nothing behind: declining deletes the account at once, and the
 * account purge (core's scheduled job, run here by hand on the stack's clock) deletes the rest once the
 * sign-in is an hour old and its session has ended. Accounts holding a scan or a grant stay.
 */
describe('accounts that hold nothing are not kept', function () {
  this.timeout(90_000);
  let stack: SignInStack;
  const chromium = browserSuite();

  before(async () => {
    stack = await startSignInStack('unused-accounts', ['Alpha', 'Beta']);
  });
  afterEach(() => {
    stack.clock.offsetMs = 0;
  });
  after(async () => {
    await stack?.close();
  });

  const sql = async (text: string, params: unknown[] = []): Promise<any[]> =>
    stack.orm.em.getConnection().execute(text, params);
  const accountOf = async (upstream: number, subject: string): Promise<string | undefined> =>
    (
      await sql('select account_id from account_identities where provider = ? and subject = ?', [
        stack.upstreams[upstream]!.provider.issuer,
        subject,
      ])
    )[0]?.account_id;

  /** Every row of every table that mentions the account (its id anywhere in the row). */
  async function rowsMentioning(accountId: string): Promise<string[]> {
    const tables = await sql(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    const found: string[] = [];
    for (const { table_name } of tables) {
      const rows = await sql(`select count(*) as n from "${table_name}" t where t::text like ?`, [
        `%${accountId}%`,
      ]);
      if (Number(rows[0]?.n) > 0) found.push(`${table_name}: ${rows[0].n}`);
    }
    return found;
  }

  /** Runs the account purge in the running core and waits until the worker has finished it. */
  async function purge(): Promise<void> {
    const [job] = await sql('select (graphile_worker.add_job(?)).id', [ACCOUNT_PURGE_TASK]);
    for (let waited = 0; waited < 20_000; waited += 50) {
      const left = await sql('select last_error from graphile_worker.jobs where id = ?', [job!.id]);
      if (left.length === 0) return;
      assert.equal(left[0]!.last_error, null, 'the account purge failed');
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the account purge did not run');
  }

  async function newPage(): Promise<Page> {
    return (await chromium.newContext()).newPage();
  }

  /** Opens /authorize for a fresh client and signs in at Alpha: the page shows the consent question. */
  async function signInToConsent(login: string) {
    const client = (await register(stack.baseUrl, { client_name: 'Helpful Agent' })).body;
    const url = authorizeUrl(stack.baseUrl, {
      client_id: client.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: `state-${login}`,
    });
    const page = await newPage();
    const arrived = interceptRedirect(page);
    await page.goto(url.href);
    await page.getByRole('link', { name: 'Continue with Alpha' }).click();
    await page.getByLabel('Name').fill(login);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Decline' }).waitFor();
    return { page, arrived, url };
  }

  it('declining on the consent page sends the client access_denied and leaves no row about the account; an account holding a grant stays', async () => {
    const { page, arrived } = await signInToConsent('dora');
    const accountId = await accountOf(0, 'dora');
    assert.ok(accountId, 'signing in made the account');
    await page.getByRole('button', { name: 'Decline' }).click();
    const back = await arrived;
    assert.equal(back.origin + back.pathname, REDIRECT_URI);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'state-dora');
    assert.equal(back.searchParams.get('code'), null);
    assert.deepEqual(await rowsMentioning(accountId), []);

    // Someone who already allowed another client declines this one: the account and its grant stay.
    const first = await register(stack.baseUrl, { client_name: 'First' });
    const url = authorizeUrl(stack.baseUrl, {
      client_id: first.body.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const allowed = await authorizeInBrowser(chromium.browser, url, { provider: 'Alpha', login: 'gail' });
    assert.ok(allowed.searchParams.get('code'));
    const kept = (await accountOf(0, 'gail'))!;
    const again = await signInToConsent('gail');
    await again.page.getByRole('button', { name: 'Decline' }).click();
    assert.equal((await again.arrived).searchParams.get('error'), 'access_denied');
    assert.equal(await accountOf(0, 'gail'), kept);
    const grants = await sql(
      `select count(*) as n from oauth_state where model = 'Grant' and account_id = ?`,
      [kept],
    );
    assert.equal(Number(grants[0].n), 1);
  });

  it('a sign-in left at the consent page (the browser closed) goes once its session has ended, not before', async () => {
    const { page } = await signInToConsent('cleo');
    await page.context().close();
    const accountId = (await accountOf(0, 'cleo'))!;
    assert.ok(accountId);
    stack.clock.offsetMs = 2 * HOUR_MS;
    await purge();
    assert.equal(await accountOf(0, 'cleo'), accountId, 'kept while its sign-in session lives (a day)');
    stack.clock.offsetMs = 25 * HOUR_MS;
    await purge();
    assert.equal(await accountOf(0, 'cleo'), undefined);
    assert.deepEqual(await rowsMentioning(accountId), []);
  });

  it('signing in on the save page without saving leaves nothing an hour later; saving keeps the account', async () => {
    async function signInOnSavePage(login: string) {
      const scan = await consentedScan(stack);
      const context = await chromium.newContext();
      await holdConsentCookie(context, stack.baseUrl, scan.browserSecret);
      const page = await context.newPage();
      const state = await callTool(stack.baseUrl, 'get_skin_scan', {
        run_id: scan.runId,
        access_token: scan.accessToken,
      });
      await page.goto(state.structuredContent.save_url);
      await page.getByRole('link', { name: 'Continue with Beta' }).click();
      await page.getByLabel('Name').fill(login);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Save to my account' }).waitFor();
      return page;
    }
    await signInOnSavePage('looker');
    const saver = await signInOnSavePage('saver');
    await saver.getByRole('button', { name: 'Save to my account' }).click();
    await saver.getByText('This scan is saved to the account').waitFor();
    const looker = (await accountOf(1, 'looker'))!;
    const saverAccount = (await accountOf(1, 'saver'))!;

    stack.clock.offsetMs = 30 * 60 * 1000;
    await purge();
    assert.equal(await accountOf(1, 'looker'), looker, 'kept within the hour after signing in');
    stack.clock.offsetMs = 2 * HOUR_MS;
    await purge();
    assert.equal(await accountOf(1, 'looker'), undefined);
    assert.deepEqual(await rowsMentioning(looker), []);
    assert.equal(await accountOf(1, 'saver'), saverAccount, 'an account holding a scan stays');
  });

  it('signing in again keeps the account another hour', async () => {
    await signInToConsent('remy');
    const accountId = (await accountOf(0, 'remy'))!;
    // A day later the sessions have ended, and the person signs in again.
    stack.clock.offsetMs = 25 * HOUR_MS;
    await signInToConsent('remy');
    assert.equal(await accountOf(0, 'remy'), accountId);
    await purge();
    assert.equal(await accountOf(0, 'remy'), accountId, 'its last sign-in is recent');
    stack.clock.offsetMs = 27 * HOUR_MS;
    await purge();
    assert.equal(await accountOf(0, 'remy'), undefined);
  });

  it('a consent storing its grant while the purge runs keeps the account: the purge skips it, then sees the grant', async () => {
    await signInToConsent('rita');
    const accountId = (await accountOf(0, 'rita'))!;
    stack.clock.offsetMs = 25 * HOUR_MS;
    // The grant's insert, as core's UpsertState makes it, not yet committed: it holds the account's row.
    const consent = new pg.Client({ connectionString: stack.databaseUrl });
    await consent.connect();
    try {
      await consent.query('begin');
      await consent.query(
        `insert into oauth_state (model, id, payload, account_id, expires_at)
         values ('Grant', 'grant-rita', '{}', (select id from accounts where id = $1), now() + interval '30 days')`,
        [accountId],
      );
      await purge();
      await consent.query('commit');
    } finally {
      await consent.end();
    }
    await purge();
    assert.equal(await accountOf(0, 'rita'), accountId);
    const grant = await sql(`select account_id from oauth_state where model = 'Grant' and id = 'grant-rita'`);
    assert.equal(grant[0]?.account_id, accountId);
  });
});
