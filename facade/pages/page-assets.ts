/**
 * GET /scan/assets/:version/:file: the upload page's own files (its script and style, the ALTCHA widget),
 * from our own origin, as listed in scan-assets.ts. Each is read once and kept; an unknown name is a plain
 * 404. Under this deploy's ASSET_VERSION a file never changes: cached for a year. Under its plain name
 * (`/scan/assets/:file`) or another deploy's version (a page served by a replica not yet replaced) it is
 * this deploy's file, which the browser must ask for again each time, so that no cache keeps it under a
 * name that means another content.
 *
 * Each file is also compressed once, when first read, with Brotli and gzip at their best settings, and sent
 * so to a browser that accepts it (Accept-Encoding, q-values honoured; Brotli first): the widget's ~83 KB
 * script went whole to a phone on a slow network, before the person could tick the box. `Vary:
 * Accept-Encoding` keeps caches from handing one encoding to a browser that asked for another; the length
 * is the length of what is sent, HEAD's as GET's.
 */
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Context } from 'koa';
import { ASSET_VERSION, ASSETS } from './scan-assets.ts';

/** A file as read, and in each encoding that makes it smaller. */
interface Encoded {
  readonly identity: Buffer;
  readonly br?: Buffer;
  readonly gzip?: Buffer;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
const loaded = new Map<string, Promise<Encoded>>();

async function encode(path: string): Promise<Encoded> {
  const identity = await readFile(path);
  const [br, gz] = await Promise.all([
    brotli(identity, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzipped(identity, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  return {
    identity,
    br: br.length < identity.length ? br : undefined,
    gzip: gz.length < identity.length ? gz : undefined,
  };
}

export async function serveAsset(ctx: Context, file: string, version?: string): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
  if (!asset) {
    ctx.status = 404;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain';
    ctx.body = 'Not found';
    return;
  }
  let content = loaded.get(file);
  if (!content) {
    content = encode(asset.path);
    loaded.set(file, content);
    content.catch(() => loaded.delete(file)); // a failed read is tried again next time
  }
  const encoded = await content;
  ctx.status = 200;
  ctx.set('Cache-Control', version === ASSET_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.vary('Accept-Encoding');
  ctx.type = asset.type;
  const chosen = chooseEncoding(ctx.get('Accept-Encoding'), encoded);
  if (chosen) ctx.set('Content-Encoding', chosen);
  ctx.body = encoded[chosen ?? 'identity'];
}

/**
 * The encoding to send: the one the browser rates highest (its q-values), Brotli on a tie, since browsers
 * list gzip first ('gzip, deflate, br, zstd') though Brotli is 11 % smaller here; none if it accepts neither.
 * (Koa's acceptsEncodings breaks ties by the browser's order.)
 */
function chooseEncoding(header: string, encoded: Encoded): 'br' | 'gzip' | undefined {
  const rated = new Map<string, number>();
  for (const item of header.split(',')) {
    const [name = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (name) rated.set(name, Number.isFinite(value) ? value : 0);
  }
  const rating = (name: 'br' | 'gzip') => (encoded[name] ? (rated.get(name) ?? rated.get('*') ?? 0) : 0);
  const [br, gz] = [rating('br'), rating('gzip')];
  if (br > 0 && br >= gz) return 'br';
  return gz > 0 ? 'gzip' : undefined;
}
