/**
 * The MCP SDK client's OAuth side for tests: an in-memory OAuthClientProvider, and a person in headless
 * Chromium who goes through /authorize — chooses a provider, signs in upstream, approves or declines.
 * The client's redirect URI is intercepted in the browser, so no server has to listen there.
 */

import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export class MemoryOAuthClient implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientMetadata;
  client?: OAuthClientInformationMixed;
  savedTokens?: OAuthTokens;
  authorizationUrl?: URL;
  #verifier = '';
  readonly #redirectUrl: string;

  /**
   * `redirect` is the URI the client registers and the one it then listens on: a native client registers
   * one loopback port and is given another by the system on a later run.
   */
  constructor(
    authMethod: 'none' | 'client_secret_basic' | 'client_secret_post',
    redirect: { readonly registered: string; readonly used: string } = {
      registered: REDIRECT_URI,
      used: REDIRECT_URI,
    },
  ) {
    this.#redirectUrl = redirect.used;
    this.clientMetadata = {
      client_name: `test client (${authMethod})`,
      redirect_uris: [redirect.registered],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: authMethod,
    };
  }

  get redirectUrl() {
    return this.#redirectUrl;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.savedTokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.savedTokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

export interface PersonChoices {
  /** The provider's display name to click. */
  readonly provider: string;
  /** The name to sign in with at the development provider. */
  readonly login: string;
  readonly decision?: 'approve' | 'decline';
}

/** Walks a person through /authorize; returns the URL the browser was finally sent to. */
export async function authorizeInBrowser(browser: Browser, url: URL, person: PersonChoices): Promise<URL> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const arrived = interceptRedirect(page, url.searchParams.get('redirect_uri') ?? REDIRECT_URI);
    await page.goto(url.href);
    await page.getByRole('link', { name: `Continue with ${person.provider}` }).click();
    await page.getByLabel('Name').fill(person.login);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: person.decision === 'decline' ? 'Decline' : 'Allow' }).click();
    return await arrived;
  } finally {
    await context.close();
  }
}

/**
 * Where the browser is sent back to the client at `redirectUri`. A native application's own scheme
 * (cursor://…) never loads in a browser: the Location of the redirect to it is taken instead.
 */
export function interceptRedirect(page: Page, redirectUri = REDIRECT_URI): Promise<URL> {
  return new Promise((resolve) => {
    if (!/^https?:/.test(redirectUri)) {
      page.on('response', (response) => {
        const location = response.headers().location;
        if (location?.startsWith(redirectUri)) resolve(new URL(location));
      });
      return;
    }
    void page.route(`${redirectUri}**`, async (route) => {
      resolve(new URL(route.request().url()));
      await route.fulfill({ status: 200, contentType: 'text/plain', body: 'back at the client' });
    });
  });
}

/** The SDK client's whole flow: 401 → metadata → registration → browser → code → token → connected. */
export async function connectWithOAuth(
  browser: Browser,
  baseUrl: string,
  oauth: MemoryOAuthClient,
  person: PersonChoices,
): Promise<Client> {
  const endpoint = new URL('/mcp/account', baseUrl);
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: oauth });
  const client = new Client({ name: 'skinmatch-oauth-tests', version: '1.0.0' });
  await client.connect(first).then(
    () => {
      throw new Error('connected without signing in');
    },
    (err: Error) => {
      if (!(err instanceof UnauthorizedError)) throw err;
    },
  );
  const back = await authorizeInBrowser(browser, oauth.authorizationUrl!, person);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  await first.finishAuth(code);
  const signedIn = new Client({ name: 'skinmatch-oauth-tests', version: '1.0.0' });
  await signedIn.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: oauth }));
  return signedIn;
}
