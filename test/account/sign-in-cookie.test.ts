import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Browser } from 'playwright-core';
import { SealedCookies } from '../../facade/oauth/sealed-cookies.ts';
import { launchBrowser } from '../support/browser.ts';
import { interceptRedirect } from '../support/oauth-client.ts';
import { authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

const KEYS = ['test-cookie-key-of-at-least-32-characters'];

/** Every reading of a cookie value: as it is, URL-decoded, and each part base64(url)-decoded. */
function decodings(value: string): string[] {
  const texts = new Set([value, decodeURIComponent(value)]);
  for (const text of [...texts]) {
    for (const part of [text, ...text.split(/[.:]/)]) {
      texts.add(Buffer.from(part, 'base64url').toString('utf8'));
      texts.add(Buffer.from(part, 'base64url').toString('latin1'));
    }
  }
  return [...texts];
}

/** Whether any reading of `value` holds a PKCE verifier whose S256 challenge is `challenge`. */
function holdsVerifier(value: string, challenge: string): boolean {
  return decodings(value).some((text) =>
    (text.match(/[A-Za-z0-9_~.-]{43,128}/g) ?? []).some((candidate) =>
      [...Array(candidate.length - 42).keys()].some((start) =>
        [...Array(Math.min(128, candidate.length - start) - 42).keys()].some(
          (extra) =>
            createHash('sha256')
              .update(candidate.slice(start, start + 43 + extra))
              .digest('base64url') === challenge,
        ),
      ),
    ),
  );
}

describe('the upstream sign-in cookie', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  let browser: Browser;

  before(async () => {
    stack = await startSignInStack('sign-in-cookie', ['Alpha']);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('holds neither the PKCE verifier, the state nor the nonce in any decoding; the sign-in still works', async () => {
    const client = (await register(stack.baseUrl)).body;
    const { challenge } = pkce();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const arrived = interceptRedirect(page);
      await page.goto(
        authorizeUrl(stack.baseUrl, {
          client_id: client.client_id,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }).href,
      );
      const issuer = stack.upstreams[0]!.provider.issuer;
      const requests: URL[] = [];
      page.on('request', (req) => requests.push(new URL(req.url())));
      await page.getByRole('link', { name: 'Continue with Alpha' }).click();
      await page.getByLabel('Name').waitFor();
      // The façade's authorization request at the upstream provider: what it asked for is in the address.
      const upstream = requests.find((u) => u.origin === issuer && u.searchParams.has('code_challenge'))!;
      assert.ok(upstream, requests.join(' '));
      const asked = {
        state: upstream.searchParams.get('state')!,
        nonce: upstream.searchParams.get('nonce')!,
        code_challenge: upstream.searchParams.get('code_challenge')!,
      };
      assert.ok(asked.state.length >= 16 && asked.nonce.length >= 16 && asked.code_challenge.length === 43);
      const cookies = (await context.cookies(stack.baseUrl)).filter((c) =>
        c.name.startsWith('__Host-skinmatch-signin'),
      );
      assert.ok(cookies.some((c) => c.name === '__Host-skinmatch-signin'));
      for (const cookie of cookies) {
        assert.equal(cookie.httpOnly, true);
        for (const text of decodings(cookie.value)) {
          assert.ok(!text.includes(asked.state), `state in ${cookie.name}`);
          assert.ok(!text.includes(asked.nonce), `nonce in ${cookie.name}`);
        }
        assert.equal(holdsVerifier(cookie.value, asked.code_challenge), false, `verifier in ${cookie.name}`);
      }
      await page.getByLabel('Name').fill('sealed-cookie');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).click();
      const back = await arrived;
      assert.equal(back.searchParams.get('state'), 'state-1');
      assert.match(back.searchParams.get('code') ?? '', /^[\w-]{20,}$/);
    } finally {
      await context.close();
    }
  });

  it('is Secure whenever PUBLIC_BASE_URL is https, though TLS ends at a proxy the façade does not trust', async () => {
    const setCookie = async (base: string) => {
      const app = new Koa();
      const cookies = new SealedCookies(KEYS, base);
      app.use((ctx) => {
        cookies.set(ctx, 'skinmatch_signin', { verifier: 'v' });
        ctx.body = 'ok';
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((done) => server.once('listening', done));
      try {
        const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        assert.equal(res.status, 200);
        return res.headers.getSetCookie();
      } finally {
        server.close();
      }
    };
    const behindProxy = await setCookie('https://skinmatch.example');
    assert.equal(behindProxy.length, 1);
    assert.match(
      behindProxy[0]!,
      /^skinmatch_signin=sealed:v1:[\w-]+; path=\/; expires=.+; samesite=lax; secure; httponly$/,
    );
    const plain = await setCookie('http://localhost:8080');
    assert.equal(plain.length, 1);
    assert.doesNotMatch(plain[0]!, /secure/i);
  });

  it('is read back only under its own name, untouched, under a configured key', async () => {
    const cookies = new SealedCookies(KEYS, 'https://skinmatch.example');
    const read = (name: string, value: string, keys = cookies) =>
      keys.read<{ verifier: string }>(
        { cookies: { get: (n: string) => (n === name ? value : undefined) } } as never,
        name,
      );
    let sealed = '';
    cookies.set(
      { secure: true, cookies: { set: (_n: string, v: string) => (sealed = v) } } as never,
      'skinmatch_signin',
      {
        verifier: 'the-verifier',
      },
    );
    assert.deepEqual(read('skinmatch_signin', sealed), { verifier: 'the-verifier' });
    assert.equal(read('skinmatch_save', sealed), undefined, 'another cookie’s name');
    assert.equal(read('skinmatch_signin', `${sealed.slice(0, -2)}AA`), undefined, 'tampered with');
    const rotated = new SealedCookies(
      ['a-new-cookie-key-of-at-least-32-characters', ...KEYS],
      'https://x.example',
    );
    assert.deepEqual(read('skinmatch_signin', sealed, rotated), { verifier: 'the-verifier' }, 'an older key');
    const other = new SealedCookies(['a-new-cookie-key-of-at-least-32-characters'], 'https://x.example');
    assert.equal(read('skinmatch_signin', sealed, other), undefined, 'a key no longer configured');
  });
});
