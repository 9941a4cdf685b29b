/**
 * Scan capabilities. A token is 32 random bytes as 64 lowercase hex characters; the database keeps only
 * HMAC-SHA256(pepper, token), so a database leak reveals no usable token, and the pepper lives in
 * configuration (a Kubernetes Secret), never beside the hashes.
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_PATTERN = /^[a-f0-9]{64}$/;

export interface IssuedToken {
  readonly token: string;
  readonly hash: string;
}

export function issueToken(pepper: Buffer): IssuedToken {
  const token = randomBytes(32).toString('hex');
  return { token, hash: hashToken(pepper, token) };
}

export function hashToken(pepper: Buffer, token: string): string {
  return createHmac('sha256', keyOf(pepper)).update(token).digest('hex');
}

/** An HMAC keyed by a KeyObject costs about a seventh of one keyed by a Buffer (which imports the key
 * afresh each time), so each pepper is imported once. */
const keys = new WeakMap<Buffer, KeyObject>();
function keyOf(pepper: Buffer): KeyObject {
  let key = keys.get(pepper);
  if (!key) {
    key = createSecretKey(pepper);
    keys.set(pepper, key);
  }
  return key;
}

/** Stands in for a stored hash when the scan does not exist, so both paths do the same work. */
const ABSENT_HASH = '0'.repeat(64);

/** Constant-time check of a presented token against a stored hash (or against nothing). */
export function tokenMatches(pepper: Buffer, token: string, storedHash: string | undefined): boolean {
  const presented = Buffer.from(hashToken(pepper, token), 'hex');
  const stored = Buffer.from(storedHash ?? ABSENT_HASH, 'hex');
  return timingSafeEqual(presented, stored) && storedHash !== undefined;
}
