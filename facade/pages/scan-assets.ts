/**
 * The upload page's static files, served from our own origin by the façade's `/scan/assets/:file` route:
 * the page's own scripts and style, and the ALTCHA widget from the `altcha` npm package. The widget is its
 * "external" build: no inline styles (its CSS is a file of its own) and no workers made from blob: URLs;
 * the page registers the PBKDF2 worker file below (worker-src 'self').
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = join(dirname(fileURLToPath(import.meta.url)), 'assets');
// The package exports no package.json: its main file is dist/main/altcha.umd.cjs.
const altcha = dirname(dirname(createRequire(import.meta.url).resolve('altcha')));

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** File name under /scan/assets/ → absolute path on disk and content type. */
export const ASSETS: Readonly<Record<string, { readonly path: string; readonly type: string }>> = {
  'scan-page.js': { path: join(here, 'scan-page.js'), type: JS },
  'scan-upload.js': { path: join(here, 'scan-upload.js'), type: JS },
  'scan-steps.js': { path: join(here, 'scan-steps.js'), type: JS },
  'photo-orientation.js': { path: join(here, 'photo-orientation.js'), type: JS },
  'scan-page.css': { path: join(here, 'scan-page.css'), type: CSS },
  'altcha.js': { path: join(altcha, 'external', 'altcha.min.js'), type: JS },
  'altcha.css': { path: join(altcha, 'external', 'altcha.css'), type: CSS },
  'altcha-pbkdf2-worker.js': { path: join(altcha, 'workers', 'pbkdf2.js'), type: JS },
};

/**
 * One version for all the files at once, from their contents: the page names every file under it
 * (`/scan/assets/:version/:file`, and a module's relative imports stay under it), so a page never runs one
 * deploy's script with another's, as files cached under plain names for an hour did after a deploy.
 */
export const ASSET_VERSION = (() => {
  const hash = createHash('sha256');
  for (const [name, { path }] of Object.entries(ASSETS)) hash.update(name).update(readFileSync(path));
  return hash.digest('hex').slice(0, 16);
})();
