/**
 * Keyset page tokens: the sort key of the last item on a page, sealed with a tag (12 bytes of an HMAC under
 * the pepper, over a purpose string that names the listing and what the token is bound to), base64url.
 * A keyset cursor, unlike an offset, does not shift when items are added or removed between two requests;
 * the tag makes the token opaque, so a made-up, offset-like, altered or foreign token is refused as
 * `invalid_input` (field `page_token`), never read as some other position.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { serviceError } from './errors.ts';

const TAG_BYTES = 12;
const BASE64URL = /^[\w-]+$/;

export function sealPageToken(pepper: Buffer, purpose: string, key: Buffer): string {
  return Buffer.concat([key, tag(pepper, purpose, key)]).toString('base64url');
}

/** The key a token sealed for `purpose` carries; `keyBytes`, when given, is the only length accepted. */
export function openPageToken(pepper: Buffer, purpose: string, token: string, keyBytes?: number): Buffer {
  const bytes = BASE64URL.test(token) ? Buffer.from(token, 'base64url') : Buffer.alloc(0);
  const key = bytes.subarray(0, bytes.length - TAG_BYTES);
  if (
    bytes.length < TAG_BYTES ||
    (keyBytes !== undefined && key.length !== keyBytes) ||
    // One spelling per token: base64url decoding ignores stray trailing bits.
    bytes.toString('base64url') !== token ||
    !timingSafeEqual(bytes.subarray(key.length), tag(pepper, purpose, key))
  ) {
    throw serviceError('invalid_input', 'page_token is not one this service issued.', {
      field: 'page_token',
    });
  }
  return key;
}

function tag(pepper: Buffer, purpose: string, key: Buffer): Buffer {
  return createHmac('sha256', pepper).update(`${purpose}\0`).update(key).digest().subarray(0, TAG_BYTES);
}
