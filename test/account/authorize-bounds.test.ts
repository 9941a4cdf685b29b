/**
 * An authorization request is stored (an interaction) before anyone signs in, so its size is bounded as well
 * as the number of requests: an oversized one is a 400 page that redirects nobody and stores nothing, and
 * the interaction of one within the bounds lives as long as a sign-in can use it.
 */
import assert from 'node:assert/strict';
import { authorize, authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('/authorize bounds', () => {
  let stack: Stack;
  let clientId: string;
  const { challenge } = pkce();

  before(async () => {
    stack = await startStack('authorize-bounds');
    clientId = (await register(stack.baseUrl)).body.client_id;
  });
  after(() => stack?.close());

  /** The stored interactions: how many, and the longest any still has to live, in seconds. */
  const interactions = async () => {
    const [row] = await stack.orm.em.getConnection().execute(
      `select count(*)::int as count, coalesce(max(extract(epoch from expires_at - now())), 0)::float as ttl
           from oauth_state where model = 'Interaction'`,
    );
    return row as { count: number; ttl: number };
  };
  const request = (params: Record<string, string>) =>
    authorize(
      authorizeUrl(stack.baseUrl, {
        client_id: clientId,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...params,
      }),
    );

  it('a request within the bounds goes to the sign-in; its interaction lives 15 minutes', async () => {
    const before = await interactions();
    for (const state of ['state-1', 's'.repeat(1024)]) {
      const res = await request({ state, scope: 'openid scan:read', nonce: 'n'.repeat(1024) });
      assert.equal(res.status, 303);
      assert.match(res.location!.pathname, /^\/interaction\/[\w-]+$/, res.location!.search);
    }
    const after = await interactions();
    assert.equal(after.count, before.count + 2);
    assert.ok(after.ttl > 880 && after.ttl <= 900, String(after.ttl));
  });

  for (const [what, params, description] of [
    ['a state over 1024 characters', { state: 's'.repeat(1025) }, 'state must be at most 1024 characters'],
    ['a nonce over 1024 characters', { nonce: 'n'.repeat(1025) }, 'nonce must be at most 1024 characters'],
    [
      'a 14.7 KB state (the probe’s)',
      { state: 's'.repeat(14_700) },
      'the authorization request must be at most 4096 bytes',
    ],
    [
      'a redirect URI over 2000 characters',
      { redirect_uri: `http://127.0.0.1:9/${'p'.repeat(2000)}` },
      'redirect_uri must be at most 2000 characters',
    ],
    [
      'a query over 4096 bytes',
      { state: 's'.repeat(1000), nonce: 'n'.repeat(1000), a: 'x'.repeat(1000), b: 'y'.repeat(1000) },
      'the authorization request must be at most 4096 bytes',
    ],
  ] as const) {
    it(`${what}: HTTP 400 page, no Location, nothing stored`, async () => {
      const before = await interactions();
      const res = await request(params);
      assert.equal(res.status, 400);
      assert.equal(res.location, undefined);
      assert.match(res.text, new RegExp(`invalid_request</p><p id="description">${description}<`));
      assertPageHeaders(res.headers);
      assert.equal((await interactions()).count, before.count);
    });
  }
});
