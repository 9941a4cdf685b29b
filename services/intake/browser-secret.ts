/**
 * The consenting browser's secret: 32 random bytes as hex, handed out once (the façade keeps it in a
 * __Host- cookie). Only its HMAC under the token pepper is stored, with a prefix of its own so that a
 * browser secret and a scan token never hash alike; checks are constant-time (scan/token.ts).
 */
import { hashToken, issueToken, tokenMatches } from '../scan/token.ts';

const DOMAIN = 'browser:';
const SECRET = /^[0-9a-f]{64}$/;

function issueBrowserSecret(pepper: Buffer): { secret: string; hash: string } {
  const { token } = issueToken(pepper);
  return { secret: token, hash: hashToken(pepper, DOMAIN + token) };
}

/**
 * The secret a browser consents with: the one it already holds from consenting to another scan (one
 * browser, one cookie for every scan: `__Host-` cookies are per host, and a new secret would take the
 * earlier scans away from the browser that owns them), else a fresh one.
 */
export function consentingSecret(pepper: Buffer, held: string): { secret: string; hash: string } {
  if (!SECRET.test(held)) return issueBrowserSecret(pepper);
  return { secret: held, hash: hashToken(pepper, DOMAIN + held) };
}

/** Constant-time: whether `secret` is the one whose hash is stored (false when nothing is stored). */
export function isConsentingBrowser(pepper: Buffer, secret: string, storedHash: string | null): boolean {
  return tokenMatches(pepper, DOMAIN + secret, storedHash ?? undefined);
}
