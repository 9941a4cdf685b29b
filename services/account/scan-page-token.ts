/**
 * The page token of ListAccountScans (`list_my_scans`): a keyset cursor, the sort key (created_at, run_id)
 * of the last scan on the page, so that scans started or deleted between two requests neither repeat an
 * item nor skip one. An offset would shift with every such change.
 *
 * Layout, base64url: created_at in epoch milliseconds (8 bytes; scans are stamped from a JS Date, so this is
 * the stored value exactly), the run_id (16 bytes), then a tag (12 bytes of an HMAC under the pepper, bound
 * to the account). The tag makes the token opaque: a made-up, offset-like, altered or another account's
 * token is refused as `invalid_input`, never read as some other position.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { serviceError } from '../shared/errors.ts';

export interface ScanCursor {
  readonly createdAt: Date;
  readonly runId: string;
}

const KEY_BYTES = 24;
const TAG_BYTES = 12;
/** 36 bytes are exactly 48 base64url characters: one spelling per token, no padding. */
const TOKEN = /^[\w-]{48}$/;

export function encodePageToken(pepper: Buffer, accountId: string, last: ScanCursor): string {
  const key = Buffer.alloc(KEY_BYTES);
  key.writeBigInt64BE(BigInt(last.createdAt.getTime()));
  key.write(last.runId.replaceAll('-', ''), 8, 'hex');
  return Buffer.concat([key, tag(pepper, accountId, key)]).toString('base64url');
}

export function decodePageToken(pepper: Buffer, accountId: string, token: string): ScanCursor {
  const bytes = TOKEN.test(token) ? Buffer.from(token, 'base64url') : Buffer.alloc(0);
  const key = bytes.subarray(0, KEY_BYTES);
  if (
    bytes.length !== KEY_BYTES + TAG_BYTES ||
    !timingSafeEqual(bytes.subarray(KEY_BYTES), tag(pepper, accountId, key))
  ) {
    throw serviceError('invalid_input', 'page_token is not one this service issued.', {
      field: 'page_token',
    });
  }
  const hex = key.toString('hex', 8);
  return {
    createdAt: new Date(Number(key.readBigInt64BE())),
    runId: [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-'),
  };
}

function tag(pepper: Buffer, accountId: string, key: Buffer): Buffer {
  return createHmac('sha256', pepper)
    .update(`list_my_scans page token\0${accountId.toLowerCase()}\0`)
    .update(key)
    .digest()
    .subarray(0, TAG_BYTES);
}
