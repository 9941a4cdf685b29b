import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { purgeExpiredState } from '../../services/account/oauth-state-service.ts';
import { launchBrowser } from '../support/browser.ts';
import { register } from '../support/oauth-http.ts';
import { signingIn } from '../support/oauth-sign-in.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

/** Registrations nobody signs in with are not kept for years: each /register left two rows for ten years. */
describe('registered clients nobody signs in with', function () {
  this.timeout(120_000);
  let stack: SignInStack;
  let browser: Browser;

  before(async () => {
    stack = await startSignInStack('registered-clients', ['Alpha']);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  const sql = <T extends object>(text: string) => stack.orm.em.getConnection().execute<T[]>(text);

  it('go with their registration tokens a month after registering; a client signed in with stays', async () => {
    const { clientId } = await signingIn(stack.baseUrl, browser).tokensFor('alice');
    const unused: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await register(stack.baseUrl);
      assert.equal(res.status, 201);
      unused.push(res.body.client_id);
    }
    const clients = `select model, coalesce(payload->>'clientId', id) as client from oauth_state
      where model in ('Client', 'RegistrationAccessToken') order by model`;
    assert.equal((await sql(clients)).length, 12);
    // A month and a second pass for every record, then core's purge runs.
    await sql(`update oauth_state set expires_at = expires_at - interval '30 days 1 second'`);
    await purgeExpiredState(stack.orm.em.fork());
    assert.deepEqual(await sql(clients), [
      { model: 'Client', client: clientId },
      { model: 'RegistrationAccessToken', client: clientId },
    ]);
  });
});
