import assert from 'node:assert/strict';
import type { Browser, BrowserContext } from 'playwright-core';
import { accountRpc } from '../support/bearer.ts';
import { launchBrowser } from '../support/browser.ts';
import { interceptRedirect, REDIRECT_URI } from '../support/oauth-client.ts';
import { authorizeUrl, INVALID_GRANT, pkce, register, token } from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

interface StateRow {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
}

describe('what the authorization server keeps at rest', function () {
  this.timeout(90_000);
  let stack: SignInStack;
  let browser: Browser;
  let base: string;

  before(async () => {
    stack = await startSignInStack('oauth-at-rest', ['Alpha']);
    base = stack.baseUrl;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** Every row of oauth_state as text, taken at each step of the flow: what psql alone would read. */
  const dumps: StateRow[][] = [];
  const dump = async () => {
    const rows = await stack.orm.em
      .getConnection()
      .execute<StateRow[]>(
        'select model, id, payload::text as payload, grant_id, uid, user_code from oauth_state',
      );
    dumps.push(rows);
    return rows;
  };
  /** Every value of the browser's cookies for the server (the `__Host-session` cookie, the interaction's). */
  const cookieValues = async (context: BrowserContext) =>
    (await context.cookies(base)).map((c) => c.value).filter((v) => v.length >= 16);

  it('no code, token, cookie, registration access token or client secret is stored; the flow still works', async () => {
    const client = (await register(base, { token_endpoint_auth_method: 'client_secret_basic' })).body;
    assert.equal(typeof client.client_secret, 'string');
    assert.equal(typeof client.registration_access_token, 'string');
    const held: Record<string, string> = {
      client_secret: client.client_secret,
      registration_access_token: client.registration_access_token,
    };
    const basic = `Basic ${Buffer.from(
      `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`,
    ).toString('base64')}`;
    const call = (form: Record<string, string>) => token(base, form, { authorization: basic });

    const { verifier, challenge } = pkce();
    const context = await browser.newContext();
    let back: URL;
    try {
      const page = await context.newPage();
      const arrived = interceptRedirect(page);
      await page.goto(
        authorizeUrl(base, {
          client_id: client.client_id,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }).href,
      );
      for (const [i, value] of (await cookieValues(context)).entries()) held[`cookie at start ${i}`] = value;
      await page.getByRole('link', { name: 'Continue with Alpha' }).click();
      await page.getByLabel('Name').fill('at-rest');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      // Signed in, asked to consent: a session and an interaction are live.
      const atConsent = await dump();
      assert.ok(atConsent.some((r) => r.model === 'Session'));
      assert.ok(atConsent.some((r) => r.model === 'Interaction'));
      for (const [i, value] of (await cookieValues(context)).entries())
        held[`cookie at consent ${i}`] = value;
      await page.getByRole('button', { name: 'Allow' }).click();
      back = await arrived;
      for (const [i, value] of (await cookieValues(context)).entries()) held[`cookie at end ${i}`] = value;
    } finally {
      await context.close();
    }
    const code = back.searchParams.get('code')!;
    held.code = code;
    assert.ok((await dump()).some((r) => r.model === 'AuthorizationCode'));

    const exchange = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
    };
    const issued = await call(exchange);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const refreshToken: string = issued.body!.refresh_token;
    held.access_token = issued.body!.access_token;
    held.refresh_token = refreshToken;
    assert.ok((await dump()).some((r) => r.model === 'RefreshToken'));
    // A code used once is refused again, and its grant ends.
    assert.deepEqual(await call(exchange), INVALID_GRANT);
    assert.deepEqual(await call({ grant_type: 'refresh_token', refresh_token: refreshToken }), INVALID_GRANT);

    // A second sign-in of the same client: refresh, then revocation.
    const second = await signInAgain(client.client_id, call);
    held.code2 = second.code;
    held.access_token2 = second.tokens.access_token;
    held.refresh_token2 = second.tokens.refresh_token;
    const refreshed = await call({ grant_type: 'refresh_token', refresh_token: second.tokens.refresh_token });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    const accessToken3: string = refreshed.body!.access_token;
    const refreshToken3: string = refreshed.body!.refresh_token;
    held.access_token3 = accessToken3;
    held.refresh_token3 = refreshToken3;
    assert.equal((await accountRpc(base, `Bearer ${accessToken3}`, 'tools/list')).status, 200);
    const afterRefresh = await dump();
    assert.ok(afterRefresh.filter((r) => r.model === 'RefreshToken').length >= 2);
    assert.ok(afterRefresh.some((r) => r.model === 'Client' && r.id === client.client_id));
    assert.deepEqual(await call({ token: refreshToken3, token_type_hint: 'refresh_token' }), {
      status: 200,
      body: undefined,
    });
    assert.equal((await accountRpc(base, `Bearer ${accessToken3}`, 'tools/list')).status, 401);
    assert.deepEqual(
      await call({ grant_type: 'refresh_token', refresh_token: refreshToken3 }),
      INVALID_GRANT,
    );
    await dump();

    // The client still authenticates with its secret, read back from its sealed copy.
    assert.deepEqual(
      await token(base, { ...exchange, client_id: client.client_id, client_secret: 'wrong' }),
      {
        status: 401,
        body: { error: 'invalid_client', error_description: 'client authentication failed' },
      },
    );
    for (const [name, value] of Object.entries(held)) {
      assert.ok(value.length >= 16, name);
      for (const rows of dumps) {
        for (const row of rows) {
          const fields = [row.id, row.payload, row.grant_id, row.uid, row.user_code].join('\n');
          assert.ok(!fields.includes(value), `${name} is stored in clear in a ${row.model} row`);
        }
      }
    }
  });

  /** Signs a new person in for `clientId` and exchanges the code. */
  async function signInAgain(
    clientId: string,
    call: (form: Record<string, string>) => ReturnType<typeof token>,
  ) {
    const { verifier, challenge } = pkce();
    const context = await browser.newContext();
    let back: URL;
    try {
      const page = await context.newPage();
      const arrived = interceptRedirect(page);
      await page.goto(
        authorizeUrl(base, { client_id: clientId, code_challenge: challenge, code_challenge_method: 'S256' })
          .href,
      );
      await page.getByRole('link', { name: 'Continue with Alpha' }).click();
      await page.getByLabel('Name').fill(`again-${clientId.slice(0, 6)}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      back = await arrived;
    } finally {
      await context.close();
    }
    const code = back.searchParams.get('code')!;
    const res = await call({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { code, tokens: res.body! };
  }
});
