/**
 * The page token of ListAccountScans (`list_my_scans`): a keyset cursor (shared/page-token.ts), the sort
 * key (created_at, run_id) of the last scan on the page, bound to the account.
 *
 * Key layout: created_at in epoch milliseconds (8 bytes; scans are stamped from a JS Date, so this is the
 * stored value exactly), then the run_id (16 bytes); with the tag, 48 base64url characters.
 */
import { openPageToken, sealPageToken } from '../shared/page-token.ts';

export interface ScanCursor {
  readonly createdAt: Date;
  readonly runId: string;
}

const KEY_BYTES = 24;

export function encodePageToken(pepper: Buffer, accountId: string, last: ScanCursor): string {
  const key = Buffer.alloc(KEY_BYTES);
  key.writeBigInt64BE(BigInt(last.createdAt.getTime()));
  key.write(last.runId.replaceAll('-', ''), 8, 'hex');
  return sealPageToken(pepper, purpose(accountId), key);
}

export function decodePageToken(pepper: Buffer, accountId: string, token: string): ScanCursor {
  const key = openPageToken(pepper, purpose(accountId), token, KEY_BYTES);
  const hex = key.toString('hex', 8);
  return {
    createdAt: new Date(Number(key.readBigInt64BE())),
    runId: [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-'),
  };
}

const purpose = (accountId: string) => `list_my_scans page token\0${accountId.toLowerCase()}`;
