/**
 * GET /scan/assets/:version/:file: the upload page's own files (its script and style, the ALTCHA widget),
 * from our own origin, as listed in scan-assets.ts. Each is read once and kept; an unknown name is a plain
 * 404. Under this deploy's ASSET_VERSION a file never changes: cached for a year. Under its plain name
 * (`/scan/assets/:file`) or another deploy's version (a page served by a replica not yet replaced) it is
 * this deploy's file, which the browser must ask for again each time, so that no cache keeps it under a
 * name that means another content.
 */
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { ASSET_VERSION, ASSETS } from './scan-assets.ts';

const loaded = new Map<string, Promise<Buffer>>();

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
    content = readFile(asset.path);
    loaded.set(file, content);
    content.catch(() => loaded.delete(file)); // a failed read is tried again next time
  }
  ctx.status = 200;
  ctx.set('Cache-Control', version === ASSET_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.type = asset.type;
  ctx.body = await content;
}
