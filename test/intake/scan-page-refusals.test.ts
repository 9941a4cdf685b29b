/**
 * The upload page's HTTP side on a real façade, core and PostgreSQL: the page and its headers, the one 404
 * page, the consent cookie, and every refusal with its status, error and words — the challenge, consent,
 * who may upload, watch and delete, and the photo checks. Photos are real faces; bad files are made from them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { ASSET_VERSION, ASSETS } from '../../facade/pages/scan-assets.ts';
import { SCAN_NOT_FOUND_HTML } from '../../facade/pages/scan-html.ts';
import { CONSENT_OUTDATED_WORDS, refusalWords } from '../../facade/pages/scan-words.ts';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { pixelBomb, singleFace } from '../inference/support/photos.ts';
import { completeScan, HEALTHY_SCORES } from '../support/fixtures.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { AWAITING_PHOTO, IN_ANOTHER_BROWSER } from '../support/page-states.ts';
import { type Stack, startStack } from '../support/stack.ts';
import {
  assertRefusal,
  BROWSER_COOKIE,
  consentOnPage,
  pageFetch,
  pageScan,
  postConsent,
  postPhoto,
  solvedChallenge,
  startScan,
} from './scan-page-support.ts';

const MAX_BYTES = 10 * 1024 * 1024;

describe('the upload page /scan/:id over HTTP: page, cookie and refusals', function () {
  this.timeout(60_000);
  let stack: Stack;
  let base: string;
  let face: Buffer;

  before(async () => {
    stack = await startStack('scan-page-refusals');
    base = stack.baseUrl;
    face = await singleFace('a');
  });
  after(() => stack?.close());
  afterEach(() => {
    stack.clock.offsetMs = 0;
  });

  const words = (reason: Parameters<typeof refusalWords>[0]) => refusalWords(reason, { maxBytes: MAX_BYTES });
  const storedPhoto = async (runId: string) =>
    (await stack.orm.em.getConnection().execute('select image from scan_photos where run_id = ?', [runId]))[0]
      ?.image as Buffer | undefined;

  it('serves the page with its security headers and a fresh CSP nonce on every response', async () => {
    const scan = await startScan(base);
    const first = await pageFetch(base, `/scan/${scan.run_id}`);
    const second = await pageFetch(base, `/scan/${scan.run_id}`);
    for (const res of [first, second]) {
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assertPageHeaders(res.headers);
    }
    const nonce = (res: Response) => /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy')!)?.[1];
    assert.ok(nonce(first));
    assert.notEqual(nonce(first), nonce(second));
    assert.equal(
      first.headers.get('content-security-policy')?.replace(/nonce-[^']+/g, 'nonce-N'),
      "default-src 'none'; script-src 'self' 'nonce-N'; style-src 'self' 'nonce-N'; img-src 'self' blob: data:; " +
        "connect-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
  });

  it('answers one byte-identical 404 page for malformed, unknown, expired and deleted ids', async () => {
    const expired = await startScan(base);
    const deletedByAgent = await startScan(base);
    assert.equal(errorCode(await callTool(base, 'delete_skin_scan', deletedByAgent)), undefined);
    const deletedOnPage = await pageScan(base);
    const removed = await pageFetch(base, `/scan/${deletedOnPage.run_id}/delete`, {
      method: 'POST',
      secret: deletedOnPage.secret,
    });
    assert.equal(removed.status, 200);
    const paths = [
      '/scan/not-a-scan',
      `/scan/${expired.run_id}x`,
      '/scan/00000000-0000-4000-8000-000000000000',
      `/scan/${deletedByAgent.run_id}`,
      `/scan/${deletedOnPage.run_id}`,
    ];
    const bodies: string[] = [];
    for (const path of paths) {
      const res = await pageFetch(base, path, { secret: deletedOnPage.secret });
      assert.equal(res.status, 404, path);
      assertPageHeaders(res.headers);
      bodies.push(await res.text());
    }
    stack.clock.offsetMs = 8 * 24 * 3600 * 1000;
    const late = await pageFetch(base, `/scan/${expired.run_id}`);
    assert.equal(late.status, 404);
    bodies.push(await late.text());
    for (const body of bodies) assert.equal(body, SCAN_NOT_FOUND_HTML);
  });

  it('takes the id in any case, as the tools take run_id: page, challenge, consent, photo, events, delete', async () => {
    const scan = await startScan(base);
    const upper = scan.run_id.toUpperCase();
    const mixed = upper.slice(0, 18) + scan.run_id.slice(18);
    const withoutNonce = async (res: Response) => (await res.text()).replace(/nonce="[^"]+"/g, 'nonce="N"');
    const page = await pageFetch(base, `/scan/${upper}`);
    assert.equal(page.status, 200);
    assert.equal(await withoutNonce(page), await withoutNonce(await pageFetch(base, `/scan/${scan.run_id}`)));

    const secret = await consentOnPage(base, mixed);
    const photo = await postPhoto(base, upper, face, { secret });
    assert.equal(photo.status, 202, await photo.clone().text());
    const events = await pageFetch(base, `/scan/${mixed}/events`, { secret });
    assert.equal(events.status, 200);
    assert.equal(events.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    await events.body?.cancel();
    assert.ok(await storedPhoto(scan.run_id));

    const removed = await pageFetch(base, `/scan/${upper}/delete`, { method: 'POST', secret });
    assert.equal(removed.status, 200);
    assert.deepEqual(await removed.json(), { deleted: true });
    assert.equal(errorCode(await callTool(base, 'get_skin_scan', scan)), 'not_found');
    assert.equal((await pageFetch(base, `/scan/${upper}`)).status, 404);
  });

  it('consent sets the __Host- cookie: 64 hex, Path=/, Secure, HttpOnly, SameSite=Strict, no Domain, not past the scan', async () => {
    const scan = await startScan(base);
    const solution = await solvedChallenge(base, scan.run_id);
    const res = await postConsent(base, scan.run_id, {
      consent_version: CONSENT_VERSION,
      challenge_solution: solution,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      state: AWAITING_PHOTO,
    });
    const cookies = res.headers.getSetCookie();
    assert.equal(cookies.length, 1);
    const [pair, ...attributes] = cookies[0]!.split('; ');
    assert.match(pair!, new RegExp(`^${BROWSER_COOKIE}=[0-9a-f]{64}$`));
    const maxAge = Number(attributes.find((a) => a.startsWith('Max-Age='))?.slice('Max-Age='.length));
    assert.ok(maxAge > 7 * 24 * 3600 - 60 && maxAge <= 7 * 24 * 3600, String(maxAge));
    assert.deepEqual(
      attributes.filter((a) => !a.startsWith('Max-Age=')),
      ['Path=/', 'Secure', 'HttpOnly', 'SameSite=Strict'],
    );
    assert.ok(!/domain=/i.test(cookies[0]!));
    // Only a keyed hash of the cookie's value is stored on the scan.
    const secret = pair!.split('=')[1]!;
    const [row] = await stack.orm.em
      .getConnection()
      .execute('select row_to_json(s)::text as json from scans s where id = ?', [scan.run_id]);
    assert.equal(row!.json.includes(secret), false);
    // The page in this browser now shows the scan as its own.
    const page = await pageFetch(base, `/scan/${scan.run_id}`, { secret });
    assert.equal(page.status, 200);
  });

  it('refuses consent without a valid, unused challenge, with the wrong Origin, a stale text or a bad body', async () => {
    const scan = await startScan(base);
    const challengeFailed = (res: Response) =>
      assertRefusal(res, 403, 'challenge_failed', words('challenge_failed'));
    await challengeFailed(await postConsent(base, scan.run_id, { consent_version: CONSENT_VERSION }));
    await challengeFailed(
      await postConsent(base, scan.run_id, {
        consent_version: CONSENT_VERSION,
        challenge_solution: 'bm9wZQ==',
      }),
    );
    const solution = await solvedChallenge(base, scan.run_id);
    const valid = { consent_version: CONSENT_VERSION, challenge_solution: solution };
    for (const origin of [null, 'https://evil.example', base.replace('127.0.0.1', 'localhost'), 'null']) {
      await assertRefusal(
        await postConsent(base, scan.run_id, valid, { origin }),
        403,
        'forbidden_origin',
        words('forbidden_origin'),
      );
    }
    await assertRefusal(
      await postConsent(base, scan.run_id, { ...valid, consent_version: '2020-01-01' }),
      400,
      'invalid_request',
      CONSENT_OUTDATED_WORDS,
    );
    for (const body of [
      '{not json',
      '[]',
      JSON.stringify({ consent_version: 7, challenge_solution: solution }),
    ]) {
      await assertRefusal(
        await postConsent(base, scan.run_id, body),
        400,
        'invalid_request',
        words('invalid_request'),
      );
    }
    // A form's POST from our own page may carry Origin: null; the browser's Sec-Fetch-Site vouches for it.
    const accepted = await postConsent(base, scan.run_id, valid, {
      origin: 'null',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(accepted.status, 200);
    // The same solution again, even for the browser that consented: used.
    await challengeFailed(await postConsent(base, scan.run_id, valid));
  });

  it('a second browser cannot consent; a party holding only the link cannot upload, replace, watch or delete', async () => {
    const scan = await pageScan(base);
    await assertRefusal(
      await postConsent(base, scan.run_id, {
        consent_version: CONSENT_VERSION,
        challenge_solution: await solvedChallenge(base, scan.run_id),
      }),
      403,
      'consent_taken',
      words('consent_taken'),
    );
    const accepted = await postPhoto(base, scan.run_id, face, { secret: scan.secret });
    assert.equal(accepted.status, 202);
    const stored = await storedPhoto(scan.run_id);
    const other = 'ab'.repeat(32);
    for (const secret of [undefined, other]) {
      const refusal = (res: Response) =>
        assertRefusal(res, 403, 'not_consenting_browser', words('not_consenting_browser'));
      await refusal(await postPhoto(base, scan.run_id, face, { secret }));
      await refusal(await pageFetch(base, `/scan/${scan.run_id}/events`, { secret }));
      await refusal(await pageFetch(base, `/scan/${scan.run_id}/delete`, { method: 'POST', secret }));
    }
    assert.deepEqual(await storedPhoto(scan.run_id), stored, 'the photo was not replaced');
    // The page itself opens for anyone with the link, and tells them the scan is another browser's.
    const page = await pageFetch(base, `/scan/${scan.run_id}`, { secret: other });
    assert.equal(page.status, 200);
    const shown = /data-state="([^"]*)"/.exec(await page.text())?.[1]?.replaceAll('&quot;', '"');
    assert.deepEqual(JSON.parse(shown!), IN_ANOTHER_BROWSER);
  });

  it('refuses a photo before consent, and from a page of another origin', async () => {
    const scan = await startScan(base);
    await assertRefusal(
      await postPhoto(base, scan.run_id, face),
      403,
      'consent_required',
      words('consent_required'),
    );
    await assertRefusal(
      await pageFetch(base, `/scan/${scan.run_id}/events`),
      403,
      'consent_required',
      words('consent_required'),
    );
    const secret = await consentOnPage(base, scan.run_id);
    for (const origin of [null, 'https://evil.example']) {
      await assertRefusal(
        await postPhoto(base, scan.run_id, face, { secret, origin }),
        403,
        'forbidden_origin',
        words('forbidden_origin'),
      );
      await assertRefusal(
        await pageFetch(base, `/scan/${scan.run_id}/delete`, { method: 'POST', secret, origin }),
        403,
        'forbidden_origin',
        words('forbidden_origin'),
      );
    }
    assert.equal(await storedPhoto(scan.run_id), undefined);
  });

  it('refuses what is not an image, a polyglot, a pixel bomb and an oversized photo, storing nothing', async () => {
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const cases: [Buffer, number, string][] = [
      [Buffer.from('just some text'), 415, 'not_an_image'],
      [await sharp(face).resize(64).gif().toBuffer(), 415, 'not_an_image'],
      [Buffer.concat([face, html]), 415, 'not_an_image'], // a JPEG with HTML after it
      [
        Buffer.concat([await sharp(face).png().toBuffer(), Buffer.from('504b0304140000000800', 'hex')]),
        415,
        'not_an_image',
      ],
      [pixelBomb(), 413, 'photo_too_many_pixels'],
      [Buffer.concat([face, Buffer.alloc(MAX_BYTES + 1 - face.length)]), 413, 'photo_too_large'],
    ];
    for (const [photo, status, error] of cases) {
      const scan = await pageScan(base);
      // Sent as an image/jpeg: the type is decided by the bytes, never by the header.
      const res = await postPhoto(base, scan.run_id, photo, {
        secret: scan.secret,
        headers: { 'content-type': 'image/jpeg' },
      });
      await assertRefusal(res, status, error, words(error as 'not_an_image'));
      assert.equal(await storedPhoto(scan.run_id), undefined, error);
    }
  });

  it('takes a photo with its metadata removed; after complete, uploads are closed', async () => {
    const tagged = await sharp(face)
      .withExif({
        IFD0: { Make: 'TestCam', Copyright: 'Jane Doe' },
        IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2406/100' },
      })
      .jpeg()
      .toBuffer();
    assert.ok((await sharp(tagged).metadata()).exif?.includes(Buffer.from([0x25, 0x88])), 'GPS before');
    const scan = await pageScan(base);
    const res = await postPhoto(base, scan.run_id, tagged, { secret: scan.secret });
    assert.equal(res.status, 202);
    assertPageHeaders(res.headers);
    assert.deepEqual(await res.json(), {
      state: { ...AWAITING_PHOTO, status: 'queued' },
    });
    const stored = (await storedPhoto(scan.run_id))!;
    const meta = await sharp(stored).metadata();
    assert.equal(meta.exif, undefined);
    assert.equal(meta.xmp, undefined);
    assert.equal(meta.icc, undefined);
    for (const text of ['Jane Doe', 'TestCam', 'GPS']) assert.equal(stored.includes(text), false, text);

    await completeScan(stack.orm, scan.run_id, HEALTHY_SCORES);
    await assertRefusal(
      await postPhoto(base, scan.run_id, face, { secret: scan.secret }),
      409,
      'upload_closed',
      words('upload_closed'),
    );
  });

  it('delete from the page: the scan and the agent’s token are gone; the cookie, kept for other scans, opens nothing', async () => {
    const scan = await pageScan(base);
    const res = await pageFetch(base, `/scan/${scan.run_id}/delete`, { method: 'POST', secret: scan.secret });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { deleted: true });
    assert.deepEqual(res.headers.getSetCookie(), []);
    const agent = await callTool(base, 'get_skin_scan', {
      run_id: scan.run_id,
      access_token: scan.access_token,
    });
    assert.equal(errorCode(agent), 'not_found');
    await assertRefusal(
      await pageFetch(base, `/scan/${scan.run_id}/delete`, { method: 'POST', secret: scan.secret }),
      404,
      'not_found',
      words('not_found'),
    );
  });

  it('the challenge for an unknown scan is not_found; assets are served with their types, unknown ones 404', async () => {
    await assertRefusal(
      await pageFetch(base, '/scan/00000000-0000-4000-8000-000000000000/challenge'),
      404,
      'not_found',
      words('not_found'),
    );
    assert.deepEqual(Object.keys(ASSETS).sort(), [
      'altcha-pbkdf2-worker.js',
      'altcha.css',
      'altcha.js',
      'photo-orientation.js',
      'scan-page.css',
      'scan-page.js',
      'scan-steps.js',
      'scan-upload.js',
    ]);
    // Under this deploy's version a file is kept for a year; under its plain name or another version (a
    // page from a replica not yet replaced) it is this deploy's file, asked for again every time.
    const otherVersion = ASSET_VERSION.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    for (const [version, cacheControl] of [
      [`${ASSET_VERSION}/`, 'public, max-age=31536000, immutable'],
      ['', 'no-cache'],
      [`${otherVersion}/`, 'no-cache'],
    ]) {
      for (const [name, { path, type }] of Object.entries(ASSETS)) {
        const res = await pageFetch(base, `/scan/assets/${version}${name}`);
        assert.equal(res.status, 200, name);
        assert.equal(res.headers.get('content-type'), type);
        assert.match(type, name.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
        assert.equal(res.headers.get('cache-control'), cacheControl, `${version}${name}`);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(path), name);
      }
    }
    for (const path of [
      '/scan/assets/nope.js',
      '/scan/assets/..%2Fscan-page.ts',
      '/scan/assets/constructor',
      `/scan/assets/${ASSET_VERSION}/nope.js`,
      `/scan/assets/${ASSET_VERSION}/x/scan-page.js`,
    ]) {
      assert.equal((await pageFetch(base, path)).status, 404, path);
    }
  });
});
