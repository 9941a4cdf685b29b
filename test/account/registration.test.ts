/**
 * Open dynamic client registration (RFC 7591), as an outside client tries it: what a client may register
 * is bounded (redirect URIs https or loopback http, nothing hidden in them or in the name a person reads,
 * sizes), bodies are UTF-8, and registrations per network are counted.
 */
import assert from 'node:assert/strict';
import { register } from '../support/oauth-http.ts';
import { type Stack, startStack } from '../support/stack.ts';

const post = (base: string, body: Buffer | string) =>
  fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('POST /register bounds what a client may register', () => {
  let stack: Stack;
  let base: string;
  before(async () => {
    stack = await startStack('registration');
    base = stack.baseUrl;
  });
  after(() => stack?.close());

  const refused = async (metadata: Record<string, unknown>, error: string, description: string) => {
    const res = await register(base, metadata);
    assert.deepEqual(
      res,
      { status: 400, body: { error, error_description: description } },
      JSON.stringify(metadata),
    );
  };

  it('a redirect URI over plain http on a host that is not loopback', async () => {
    for (const uri of [
      'http://client.example/cb',
      'http://10.0.0.7/cb',
      'http://localhost.evil.example/cb',
    ]) {
      await refused(
        { redirect_uris: ['https://ok.example/cb', uri] },
        'invalid_redirect_uri',
        'redirect_uris must use https, or http on a loopback address (localhost, 127.0.0.1, [::1])',
      );
    }
  });

  it('https anywhere, and http on loopback, are registered as given', async () => {
    const uris = [
      'https://client.example/cb',
      'https://клиент.example/κ',
      'http://localhost:3000/cb',
      'http://127.0.0.1:9/cb',
      'http://[::1]:8/cb',
    ];
    const res = await register(base, { redirect_uris: uris, client_name: '🧴 Skin helper' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.redirect_uris, uris);
    // Native, so that a loopback one is matched in any port (RFC 8252 §7.3: native-clients.test.ts).
    assert.equal(res.body.application_type, 'native');
  });

  it('a scope keeps the words this server knows; one with none of them is left out (RFC 7591 §2)', async () => {
    const registered = async (scope: string) => {
      const res = await register(base, { scope });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.scope as string | undefined;
    };
    // Refused whole before (invalid_client_metadata): the client could not connect at all.
    assert.equal(await registered('openid profile email scan:read'), 'openid scan:read');
    assert.equal(await registered('scan:read catalog:read scan:read'), 'scan:read catalog:read');
    assert.equal(await registered('profile email'), undefined);
  });

  it('user information, whitespace or control characters in a redirect URI', async () => {
    await refused(
      { redirect_uris: ['https://user:pass@client.example/cb'] },
      'invalid_redirect_uri',
      'redirect_uris must not contain user information',
    );
    for (const uri of [
      'https://c.example/cb\r\nSet-Cookie: a=b',
      'https://c.example/a b',
      ' https://c.example/cb',
      'https://c.example/\u202ebc',
    ]) {
      await refused(
        { redirect_uris: [uri] },
        'invalid_redirect_uri',
        'redirect_uris must not contain whitespace or control characters',
      );
    }
  });

  it('too many or too long redirect URIs', async () => {
    await refused(
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://c.example/${i}`) },
      'invalid_redirect_uri',
      'at most 10 redirect_uris',
    );
    await refused(
      { redirect_uris: [`https://c.example/${'a'.repeat(1990)}`] },
      'invalid_redirect_uri',
      'redirect_uris must be at most 2000 characters',
    );
  });

  it('a client name over 100 characters, or with hidden characters a person would misread', async () => {
    const uris = ['https://c.example/cb'];
    assert.equal((await register(base, { redirect_uris: uris, client_name: '𝒜'.repeat(100) })).status, 201);
    await refused(
      { redirect_uris: uris, client_name: 'x'.repeat(101) },
      'invalid_client_metadata',
      'client_name must be at most 100 characters',
    );
    for (const name of ['ppa\u202eskinmatch', 'a\u0000b', 'zero\u200bwidth', 'two\nlines']) {
      await refused(
        { redirect_uris: uris, client_name: name },
        'invalid_client_metadata',
        'client_name must not contain control or invisible formatting characters',
      );
    }
    await refused(
      { redirect_uris: uris, policy_uri: `https://c.example/${'p'.repeat(2000)}` },
      'invalid_client_metadata',
      'policy_uri must be at most 2000 characters',
    );
  });

  it('a body over 16 KiB, or one that is not UTF-8', async () => {
    const big = JSON.stringify({
      redirect_uris: ['https://c.example/cb'],
      contacts: Array(2000).fill('a@b.example'),
    });
    assert.ok(big.length > 16 * 1024 && big.length < 56 * 1024);
    for (const body of [
      big,
      Buffer.concat([
        Buffer.from('{"redirect_uris":["https://c.example/cb"],"client_name":"'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]),
    ]) {
      const res = await post(base, body);
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), {
        error: 'invalid_request',
        error_description: 'unreadable, too large or not UTF-8 request body',
      });
    }
  });
});

describe('POST /register counts registrations per network', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('registration-limits', {
      limits: { callsPerMinute: 1000, scansPerHour: 1000, registrationsPerHour: 2 },
    });
  });
  after(() => stack?.close());

  it('past the hourly budget: HTTP 429 with Retry-After, malformed attempts counted too', async () => {
    assert.equal((await register(stack.baseUrl)).status, 201);
    assert.equal((await post(stack.baseUrl, '{')).status, 400);
    const res = await post(stack.baseUrl, JSON.stringify({ redirect_uris: ['https://c.example/cb'] }));
    assert.equal(res.status, 429);
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry > 3500 && retry <= 3600, String(retry));
    assert.deepEqual(await res.json(), {
      error: 'rate_limited',
      error_description: `Too many client registrations from this network; wait ${retry} s before trying again.`,
    });
  });
});
