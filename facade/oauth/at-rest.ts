/**
 * The façade's keys for what the authorization server keeps at rest (state-adapter.ts) and for the sign-in
 * cookie (sign-in.ts). Each is derived with HKDF-SHA256 from one of OAUTH_COOKIE_KEYS, the first being
 * current: a value is hashed and sealed under the current key, and read under any of them, so that adding a
 * key in front (rotation) signs nobody out. Core never holds these keys: a row read from the database gives
 * neither a usable token nor a client's secret.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const SALT = 'skinmatch oauth state at rest';
const SEALED = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface KeyPair {
  readonly hmac: Buffer;
  readonly aes: Buffer;
}

const derive = (secret: string, info: string) => Buffer.from(hkdfSync('sha256', secret, SALT, info, 32));

export class AtRestKeys {
  readonly #keys: readonly KeyPair[];

  /** `purpose` separates the keys of different uses of the same secrets (state, cookie). */
  constructor(secrets: readonly string[], purpose = 'oauth-state') {
    if (secrets.length === 0) throw new Error('at least one key is needed');
    this.#keys = secrets.map((s) => ({
      hmac: derive(s, `${purpose} hmac`),
      aes: derive(s, `${purpose} aes-256-gcm`),
    }));
  }

  /** HMAC-SHA256 of `value` (in `domain`) under every key, current first: base64url, 43 characters. */
  hashes(domain: string, value: string): string[] {
    return this.#keys.map((k) =>
      createHmac('sha256', k.hmac).update(`${domain}\0${value}`).digest('base64url'),
    );
  }

  /** AES-256-GCM under the current key, with `context` as associated data. */
  seal(value: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys[0]!.aes, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return SEALED + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The value `seal` sealed, under whichever key opens it (`current` when the first did), or undefined for
   * anything else: not sealed, tampered with, or sealed under a key no longer configured.
   */
  open(sealed: string, context: string): { value: string; current: boolean } | undefined {
    if (!AtRestKeys.isSealed(sealed)) return undefined;
    const raw = Buffer.from(sealed.slice(SEALED.length), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    const iv = raw.subarray(0, IV_BYTES);
    const tag = raw.subarray(raw.length - TAG_BYTES);
    const body = raw.subarray(IV_BYTES, raw.length - TAG_BYTES);
    for (const [i, k] of this.#keys.entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', k.aes, iv);
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(tag);
        const value = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
        return { value, current: i === 0 };
      } catch {
        // Not this key.
      }
    }
    return undefined;
  }

  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(SEALED);
  }
}
