// The whole product as it is used: an agent (the MCP SDK client) starts a scan; a person opens upload_url in
// headless Chromium, solves the real ALTCHA widget, consents, chooses a real face photo and follows the
// analysis to its end while the agent polls get_skin_scan and then gets products. No database shortcut: the
// inference process scores the photo. A second browser with only the link gets nothing; axe-core finds no
// violation on any state of the page.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { PAGE_WORDS, SCAN_NOT_FOUND_HTML } from '../../facade/pages/scan-html.ts';
import { singleFace } from '../inference/support/photos.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { IN_ANOTHER_BROWSER } from '../support/page-states.ts';
import {
  assertAccessible,
  consentByKeyboard,
  consentOnPage,
  followScan,
  photoFile,
  productSuite,
  recordStatuses,
  shown,
  startScan,
  statuses,
} from './scan-page-browser-support.ts';

const COOKIE = '__Host-skinmatch-browser';

describe('the upload page in a real browser, with the agent and the inference process', function () {
  this.timeout(180_000);
  // Each stage of the analysis slowed a little, so that the page shows it (and axe can look at it).
  const suite = productSuite('scan-page-browser', { stageDelayMs: 300 });
  const { newPage } = suite;
  let face: string;
  let group: string;

  before(async () => {
    face = await photoFile('face');
    group = await photoFile('group');
  });

  it('the person consents, uploads a face photo and follows it to the end; the agent gets products', async () => {
    const scan = await startScan(suite.agent);
    assert.equal(scan.next_action, 'share_upload_url');
    assert.equal(scan.upload_url, `${suite.product.stack.baseUrl}/scan/${scan.run_id}`);
    const page = await newPage();
    await recordStatuses(page);
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') cspViolations.push(m.text());
    });

    const response = await page.goto(scan.upload_url);
    assert.equal(response?.status(), 200);
    assertPageHeaders(await response!.allHeaders());
    await shown(page, 'consent');
    assert.equal(await page.isChecked('#consent-check'), false);
    await assertAccessible(page, 'awaiting consent');

    // Agreeing without ticking the box is refused on the page; nothing is sent.
    await page.click('#consent-submit');
    assert.equal(await page.textContent('#alert'), 'Tick the box to agree first.');
    await consentOnPage(page);
    await assertAccessible(page, 'consented, awaiting the photo');

    // The consent cookie, from the browser's own jar.
    const cookies = await page.context().cookies();
    const cookie = cookies.find((c) => c.name === COOKIE);
    assert.ok(cookie, JSON.stringify(cookies));
    assert.match(cookie.value, /^[0-9a-f]{64}$/);
    assert.equal(cookie.path, '/');
    assert.equal(cookie.domain, '127.0.0.1'); // host-only: no Domain attribute
    assert.equal(cookie.secure, true);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(await page.evaluate('document.cookie'), '', 'HttpOnly: not visible to script');

    // The agent, meanwhile, is told to keep polling: no photo yet.
    const waiting = await suite.agent.callTool({
      name: 'get_skin_scan',
      arguments: { run_id: scan.run_id, access_token: scan.access_token },
    });
    assert.equal((waiting.structuredContent as any).status, 'awaiting_upload');

    await page.setInputFiles('#file', face);
    await shown(page, 'progress', 30_000);
    await assertAccessible(page, 'analysing');
    const [done] = await Promise.all([shown(page, 'done'), followScan(suite.agent, scan)]);
    assert.ok(done);
    assert.equal(await page.textContent('#status'), 'Done — return to your assistant.');
    await assertAccessible(page, 'complete');

    // The live region told the person each step: sent, queued or analysing with a stage and percent, done.
    const seen = await statuses(page);
    assert.ok(seen.includes('Sending your photo'), seen.join(' | '));
    assert.ok(
      seen.some((s) =>
        /^(Reading the photo|Finding your face|Checking light and focus|Measuring your skin|Working out the scores): \d+%$/.test(
          s,
        ),
      ),
      seen.join(' | '),
    );
    assert.equal(seen.at(-1), 'Done — return to your assistant.');

    // The agent: complete, then products.
    const final = await suite.agent.callTool({
      name: 'get_skin_scan',
      arguments: { run_id: scan.run_id, access_token: scan.access_token },
    });
    const state = final.structuredContent as any;
    assert.equal(state.status, 'complete');
    assert.equal(state.next_action, 'recommend_products');
    const recommended = await suite.agent.callTool({
      name: 'recommend_products',
      arguments: { run_id: scan.run_id, access_token: scan.access_token },
    });
    assert.equal(recommended.isError, undefined, JSON.stringify(recommended));
    assert.ok((recommended.structuredContent as any).products.length > 0);
    assert.deepEqual(cspViolations, []);

    // A finished scan takes no other photo.
    const again = await page.evaluate(async (url) => {
      const r = await fetch(`${url}/photo`, { method: 'POST', body: new Uint8Array([0xff, 0xd8, 0xff]) });
      return { status: r.status, body: (await r.json()) as { error: string } };
    }, scan.upload_url);
    assert.equal(again.status, 409);
    assert.equal(again.body.error, 'upload_closed');
  });

  it('a photo that cannot be used: the words to act on, then a retake that completes (by keyboard, at 360 px)', async () => {
    const scan = await startScan(suite.agent);
    const page = await newPage({ width: 360, height: 740 });
    await page.goto(scan.upload_url);
    // Readable at 360 px: nothing wider than the screen.
    assert.equal(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth), 360);
    await consentByKeyboard(page);
    // Focus moved to the step the person is at.
    assert.equal(await page.evaluate(() => (globalThis as any).document.activeElement.id), 'photo-title');
    await page.setInputFiles('#selfie', group);
    await shown(page, 'failed');
    assert.equal(
      await page.textContent('#status'),
      'More than one face is in the photo. Take a photo of your face alone.',
    );
    assert.equal(await page.textContent('#photo-title'), 'Try again');
    await assertAccessible(page, 'failed');
    const failed = await followScan(suite.agent, scan);
    assert.equal(failed.next_action, 'ask_person_to_retake');

    await page.setInputFiles('#file', face);
    await shown(page, 'done');
    assert.equal((await followScan(suite.agent, scan)).status, 'complete');
  });

  it('a 12 MP photo stored sideways (EXIF orientation 6) leaves the browser upright, at most 2048 px, without metadata', async () => {
    // The camera's pixels lie on their side; EXIF says to turn them 90° clockwise. Upright, the face stands in
    // a 3000×4000 portrait, so an upright 2048 px version is 1536×2048 and the analysis finds the face.
    const upright = await sharp({ create: { width: 3000, height: 4000, channels: 3, background: '#8a8178' } })
      .composite([
        {
          input: await sharp(await singleFace('a'))
            .resize(2400, 2400)
            .toBuffer(),
          left: 300,
          top: 800,
        },
      ])
      .jpeg()
      .toBuffer();
    const sideways = await sharp(upright)
      .rotate(270)
      .withMetadata({ orientation: 6, exif: { IFD0: { Make: 'skinmatch-test', Model: 'GPS carrier' } } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const file = join(resolve('.data/test-photos'), 'sideways-12mp.jpg');
    writeFileSync(file, sideways);
    assert.deepEqual(
      await sharp(file)
        .metadata()
        .then((m) => [m.width, m.height, m.orientation]),
      [4000, 3000, 6],
    );

    const scan = await startScan(suite.agent);
    const page = await newPage();
    // What the page hands to XMLHttpRequest.send, kept for the test to read back.
    await page.addInitScript({
      content: `
        const send = XMLHttpRequest.prototype.send;
        XMLHttpRequest.prototype.send = function (body) {
          if (body instanceof Blob) globalThis.sentPhoto = body;
          return send.call(this, body);
        };`,
    });
    await page.goto(scan.upload_url);
    await consentOnPage(page);
    await page.setInputFiles('#file', file);
    await shown(page, 'done');
    assert.equal((await followScan(suite.agent, scan)).status, 'complete');

    const sent = Buffer.from(
      await page.evaluate(async () => {
        const bytes = new Uint8Array(await (globalThis as any).sentPhoto.arrayBuffer());
        let text = '';
        for (const byte of bytes) text += String.fromCharCode(byte);
        return btoa(text);
      }),
      'base64',
    );
    const meta = await sharp(sent).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.deepEqual([meta.width, meta.height], [1536, 2048]);
    assert.equal(meta.orientation, undefined);
    assert.equal(meta.exif, undefined);
    assert.ok(sent.length < sideways.length, `${sent.length} bytes sent for ${sideways.length}`);
  });

  it('a HEIC photo the browser cannot open: words that say so and what to do, nothing sent', async () => {
    // An iPhone photo copied to a computer, opened in Chromium (which has no HEIC decoder): the file's
    // type box says HEIC, its picture cannot be read.
    const heic = Buffer.concat([
      Buffer.from('00000018667479706865696300000000686569636d696631', 'hex'), // ftyp heic, mif1
      Buffer.alloc(2048, 0x5a),
    ]);
    const scan = await startScan(suite.agent);
    const page = await newPage();
    await page.goto(scan.upload_url);
    await consentOnPage(page);
    const photos: string[] = [];
    page.on('request', (r) => r.url().endsWith('/photo') && photos.push(r.url()));
    for (const [name, mimeType] of [
      ['IMG_0042.HEIC', 'image/heic'],
      ['photo.heif', ''],
    ]) {
      await page.setInputFiles('#file', { name: name!, mimeType: mimeType!, buffer: heic });
      await page.waitForFunction(() => (globalThis as any).document.getElementById('alert').textContent);
      assert.equal(await page.textContent('#alert'), PAGE_WORDS.heic);
      await page.evaluate(() => {
        (globalThis as any).document.getElementById('alert').textContent = '';
      });
    }
    // Any other file the browser cannot open keeps the general words.
    await page.setInputFiles('#file', { name: 'notes.jpg', mimeType: 'image/jpeg', buffer: heic });
    await page.waitForFunction(() => (globalThis as any).document.getElementById('alert').textContent);
    assert.equal(await page.textContent('#alert'), PAGE_WORDS.unreadable);
    assert.deepEqual(photos, []);
    const got = await suite.agent.callTool({
      name: 'get_skin_scan',
      arguments: { run_id: scan.run_id, access_token: scan.access_token },
    });
    assert.equal((got.structuredContent as { status: string }).status, 'awaiting_upload');
  });

  it('a second browser with only the link cannot consent, upload, replace the photo or watch', async () => {
    const scan = await startScan(suite.agent);
    const owner = await newPage();
    await owner.goto(scan.upload_url);
    await consentOnPage(owner);

    const other = await newPage();
    await other.goto(scan.upload_url);
    await shown(other, 'elsewhere');
    await assertAccessible(other, "another browser's scan");
    assert.equal(await other.isVisible('#consent-form'), false);
    assert.equal(await other.isVisible('#selfie'), false);

    // From that browser's own page, with its real Origin: every door stays shut.
    const tries = async () =>
      other.evaluate(async (url) => {
        const post = async (path: string, body: string | Uint8Array, type: string) => {
          const r = await fetch(`${url}/${path}`, {
            method: 'POST',
            body,
            headers: { 'content-type': type },
          });
          return `${r.status} ${((await r.json()) as { error: string }).error}`;
        };
        const challenge = await (await fetch(`${url}/challenge`)).text();
        const events = await fetch(`${url}/events`);
        return {
          challenge: challenge.length > 0,
          consent: await post(
            'consent',
            JSON.stringify({ consent_version: '2026-11-23', challenge_solution: 'bm90IGEgc29sdXRpb24=' }),
            'application/json',
          ),
          photo: await post('photo', new Uint8Array([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'),
          events: `${events.status} ${((await events.json()) as { error: string }).error}`,
          deleted: await post('delete', '{}', 'application/json'),
        };
      }, scan.upload_url);
    const before = await tries();
    assert.match(before.consent, /^403 (challenge_failed|consent_taken)$/);
    assert.equal(before.photo, '403 not_consenting_browser');
    assert.equal(before.events, '403 not_consenting_browser');
    assert.equal(before.deleted, '403 not_consenting_browser');

    // After the owner's photo: still no replacing it, no watching it.
    await owner.setInputFiles('#file', face);
    await shown(owner, 'done');
    const after = await tries();
    assert.equal(after.photo, '403 not_consenting_browser');
    assert.equal(after.events, '403 not_consenting_browser');
    await other.reload();
    await shown(other, 'elsewhere');
    assert.equal(await other.textContent('#status'), '');
    assert.match((await other.textContent('#elsewhere-step')) ?? '', /Someone already agreed to this scan/);
    // Nothing in the page tells that browser how the scan went.
    assert.deepEqual(JSON.parse((await other.getAttribute('#scan', 'data-state'))!), IN_ANOTHER_BROWSER);
  });

  it('the consenting browser deletes the scan; deleted, expired and unknown ids get one identical 404 page', async () => {
    const scan = await startScan(suite.agent);
    const page = await newPage({ width: 1280, height: 800 });
    await page.goto(scan.upload_url);
    // A refusal's words are shown as the server gives them: here a solution tampered with on the way.
    await page.route('**/consent', (route) =>
      route.continue({
        postData: JSON.stringify({ ...route.request().postDataJSON(), challenge_solution: 'dGFtcGVyZWQ=' }),
      }),
    );
    await page.check('#consent-check');
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/consent')),
      page.click('#consent-submit'),
    ]);
    assert.equal(refused.status(), 403);
    const refusal = (await refused.json()) as { error: string; message: string };
    assert.equal(refusal.error, 'challenge_failed');
    await page.locator('#alert', { hasText: refusal.message }).waitFor();
    assert.equal(await page.textContent('#alert'), refusal.message);
    await assertAccessible(page, 'a refusal shown');
    await page.unroute('**/consent');
    // The widget starts over with a fresh challenge, and the next try goes through.
    await page.click('#consent-submit');
    await shown(page, 'photo', 30_000);
    assert.equal(await page.textContent('#alert'), '');
    await page.click('#delete-button'); // the confirm dialog is accepted
    await shown(page, 'gone');
    assert.equal(
      await page.textContent('#gone-message'),
      'The scan is deleted. Your assistant can no longer see it.',
    );
    await assertAccessible(page, 'deleted');
    const revoked = await suite.agent.callTool({
      name: 'get_skin_scan',
      arguments: { run_id: scan.run_id, access_token: scan.access_token },
    });
    assert.equal((revoked.structuredContent as any).error?.code, 'not_found');

    const expiring = await startScan(suite.agent);
    const bodies: string[] = [];
    const visit = async (url: string) => {
      const response = await page.goto(url);
      assert.equal(response?.status(), 404, url);
      assertPageHeaders(await response!.allHeaders());
      bodies.push(await response!.text());
    };
    await visit(scan.upload_url); // deleted
    await visit(`${suite.product.stack.baseUrl}/scan/00000000-0000-4000-8000-000000000000`); // unknown
    await visit(`${suite.product.stack.baseUrl}/scan/not-a-uuid`); // malformed
    suite.product.stack.clock.offsetMs = 7 * 24 * 3600 * 1000 + 1000;
    try {
      await visit(expiring.upload_url); // expired
    } finally {
      suite.product.stack.clock.offsetMs = 0;
    }
    assert.deepEqual(bodies, Array(4).fill(SCAN_NOT_FOUND_HTML));
    await assertAccessible(page, 'the 404 page');
  });
});
