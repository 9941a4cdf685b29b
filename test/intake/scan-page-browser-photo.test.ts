// The photo as the page prepares it, and the page's state after a reload, in headless Chromium with the
// inference process scoring the photo. Chromium 156 applies the EXIF orientation of a JPEG or a PNG when it
// decodes it, but not a WebP's: the page turns such a photo upright itself (assets/photo-orientation.js).
// A reload while the server stores the photo rendered "take or choose a photo" and stayed so: the page now
// asks for the scan again while it waits for a photo.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { PAGE_WORDS } from '../../facade/pages/scan-html.ts';
import { singleFace } from '../inference/support/photos.ts';
import {
  consentOnPage,
  followScan,
  productSuite,
  shown,
  sleep,
  startScan,
} from './scan-page-browser-support.ts';

/** A face photo standing upright in a 583×883 portrait. */
const uprightFace = async () =>
  sharp(await singleFace('a'))
    .extend({ top: 100, bottom: 200, background: '#8a8178' })
    .png()
    .toBuffer();

/** 48×32, four blocks of different colours: any turn or mirror moves them. */
const PATTERN = () =>
  sharp({ create: { width: 48, height: 32, channels: 3, background: '#d02020' } })
    .composite([
      { input: { create: { width: 24, height: 16, channels: 3, background: '#20d020' } }, left: 24, top: 0 },
      { input: { create: { width: 24, height: 16, channels: 3, background: '#2020d0' } }, left: 0, top: 16 },
      { input: { create: { width: 24, height: 16, channels: 3, background: '#f0f0f0' } }, left: 24, top: 16 },
    ])
    .png()
    .toBuffer();

/** The body of the page's photo request, kept as `sentPhoto` (base64) in the page. */
const keepSentPhoto = (page: Page) =>
  page.addInitScript({
    content: `
      const send = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function (body) {
        if (body instanceof Blob) {
          body.arrayBuffer().then((b) => {
            globalThis.sentPhoto = btoa(Array.from(new Uint8Array(b), (c) => String.fromCharCode(c)).join(''));
          });
        }
        return send.call(this, body);
      };`,
  });

/** The photo the page sent (kept by keepSentPhoto), once it has one. */
async function sentPhoto(page: Page): Promise<Buffer> {
  for (let tries = 0; tries < 100; tries++) {
    const kept = await page.evaluate('globalThis.sentPhoto');
    if (typeof kept === 'string') return Buffer.from(kept, 'base64');
    await sleep(100);
  }
  throw new Error('the page sent no photo');
}

const pixels = (image: Buffer) => sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });

/** Its size, then the colour at the centre of each quarter, row by row: where the blocks of PATTERN went. */
async function blockColours(image: Buffer): Promise<number[]> {
  const { data, info } = await pixels(image);
  const at = (x: number, y: number) => {
    const i = (Math.floor(y * info.height) * info.width + Math.floor(x * info.width)) * 3;
    return [...data.subarray(i, i + 3)];
  };
  return [info.width, info.height, ...[0.25, 0.75].flatMap((y) => [0.25, 0.75].flatMap((x) => at(x, y)))];
}

describe('the upload page: the photo made upright, the state after a reload', function () {
  this.timeout(180_000);
  const suite = productSuite('scan-page-browser-photo');
  const { newPage } = suite;

  /** The photo through the page to the end of its analysis: the JPEG the page sent, and the scan. */
  async function throughThePage(photo: Buffer, name: string) {
    const scan = await startScan(suite.agent);
    const page = await newPage();
    await keepSentPhoto(page);
    await page.goto(scan.upload_url);
    await consentOnPage(page);
    await page.setInputFiles('#file', { name, mimeType: 'image/webp', buffer: photo });
    await page.waitForSelector('#done-step:not([hidden]), #failed-step:not([hidden])', { timeout: 60_000 });
    return { sent: await sentPhoto(page), state: await followScan(suite.agent, scan) };
  }

  it('a WebP stored sideways (EXIF orientation 6) is sent upright: the same result as the upright photo', async () => {
    const upright = await uprightFace();
    const straight = await sharp(upright).webp({ lossless: true }).toBuffer();
    // The camera's pixels on their side (883×583); EXIF says to turn them 90° clockwise.
    const sideways = await sharp(upright)
      .rotate(270)
      .withMetadata({ orientation: 6 })
      .webp({ lossless: true })
      .toBuffer();
    assert.equal((await sharp(sideways).metadata()).width, 883);

    const expected = await throughThePage(straight, 'upright.webp');
    assert.equal(expected.state.status, 'complete', JSON.stringify(expected.state));
    const turned = await throughThePage(sideways, 'sideways.webp');
    assert.equal(turned.state.status, 'complete', JSON.stringify(turned.state));
    const [want, got] = [await pixels(expected.sent), await pixels(turned.sent)];
    assert.deepEqual([got.info.width, got.info.height], [583, 883]);
    assert.deepEqual(got.data, want.data, 'the same pixels as the upright photo, sent');
    assert.deepEqual(turned.state.scores, expected.state.scores);
  });

  it('every EXIF orientation of a JPEG, a PNG and a WebP leaves the page upright', async () => {
    const page = await newPage();
    // A blank page of the service's own origin to import the page's module from: the service's own answers
    // that are not pages (/health, a 404) carry a policy forbidding scripts (security-headers.ts).
    const blank = `${suite.product.stack.baseUrl}/blank`;
    await page.route(blank, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html>' }));
    await page.goto(blank);
    const wrong: string[] = [];
    for (const format of ['jpeg', 'png', 'webp'] as const) {
      for (let orientation = 1; orientation <= 8; orientation++) {
        const tagged = await sharp(await PATTERN())
          .withMetadata({ orientation })
          [format](format === 'png' ? {} : { quality: 100 })
          .toBuffer();
        const prepared = await page.evaluate(
          async ([base64, type]) => {
            const { preparePhoto } = await import('/scan/assets/scan-upload.js' as string);
            const bytes = Uint8Array.from(atob(base64!), (c) => c.charCodeAt(0));
            const blob: Blob = await preparePhoto(new File([bytes], 'photo', { type }));
            const view = new Uint8Array(await blob.arrayBuffer());
            return btoa(Array.from(view, (b) => String.fromCharCode(b)).join(''));
          },
          [tagged.toString('base64'), `image/${format}`],
        );
        const want = await blockColours(await sharp(tagged).rotate().toBuffer());
        const got = await blockColours(Buffer.from(prepared, 'base64'));
        if (!want.every((value, i) => Math.abs(value - got[i]!) <= 24)) {
          wrong.push(`${format} ${orientation}: ${got.join(' ')}, not ${want.join(' ')}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('reloaded while the server stores the photo: the page goes on to show the scan done', async () => {
    const scan = await startScan(suite.agent);
    const page = await newPage();
    await keepSentPhoto(page);
    await page.goto(scan.upload_url);
    await consentOnPage(page);
    // The page's photo held on its way; the page reloads; then the same bytes reach the server from this
    // browser (its cookie): as when the server is still storing a photo while the reloaded page is rendered.
    await page.route('**/photo', () => {}); // never answered: the reload cancels it
    await page.setInputFiles('#file', {
      name: 'face.png',
      mimeType: 'image/png',
      buffer: await uprightFace(),
    });
    const photo = await sentPhoto(page);
    await page.reload();
    await shown(page, 'photo');
    assert.equal(await page.textContent('#status'), PAGE_WORDS.awaitingPhoto);
    const stored = await page.context().request.post(`${scan.upload_url}/photo`, {
      headers: { origin: suite.product.stack.baseUrl, 'content-type': 'image/jpeg' },
      data: photo,
    });
    assert.equal(stored.status(), 202);
    assert.equal((await followScan(suite.agent, scan)).status, 'complete');
    // No reload, no return to the tab: the page learns it by itself.
    await shown(page, 'done', 60_000);
    assert.equal(await page.textContent('#status'), PAGE_WORDS.complete);
  });
});
