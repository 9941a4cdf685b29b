/**
 * UploadPhoto over Connect on a real core and PostgreSQL: every refusal with its exact code, and what is
 * stored when a photo is accepted — read back from scan_photos: upright, no EXIF, GPS, ICC or XMP left.
 * Photos are real faces (test/inference/support/photos.ts); the bad files are made from them.
 */
import assert from 'node:assert/strict';
import { Code } from '@connectrpc/connect';
import sharp from 'sharp';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { ANALYZE_TASK, storePhoto } from '../../services/scan/photo-intake.ts';
import { pixelBomb, singleFace } from '../inference/support/photos.ts';
import { completeScan, HEALTHY_SCORES, setScanStatus } from '../support/fixtures.ts';
import { testIntake } from '../support/intake.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { mpfJpeg } from './mpf.ts';
import { type Clients, clients, consentedScan, refused } from './support.ts';

const UPLOADS_PER_HOUR = 12;

describe('IntakeService.UploadPhoto: checks before storing, and what is stored', () => {
  let stack: Stack;
  let c: Clients;
  let face: Buffer;

  before(async () => {
    stack = await startStack('intake-upload', {
      intake: testIntake({ maxBytes: 2 * 1024 * 1024, uploadsPerHour: UPLOADS_PER_HOUR }),
    });
    c = clients(stack);
    face = await singleFace('a');
  });
  after(() => stack?.close());
  afterEach(() => {
    stack.clock.offsetMs = 0;
  });

  const sql = (query: string, values: unknown[] = []) => stack.orm.em.getConnection().execute(query, values);
  const storedPhoto = async (runId: string) =>
    (await sql('select image, content_type from scan_photos where run_id = ?', [runId]))[0] as
      | { image: Buffer; content_type: string }
      | undefined;
  const upload = async (photo: Uint8Array, scan?: { runId: string; secret: string }) => {
    const { runId, secret } = scan ?? (await consentedScan(c));
    return c.intake.uploadPhoto({ runId, browserSecret: secret, photo });
  };
  /** A refused file leaves nothing behind: no photo, no job, still awaiting its upload. */
  const refusedAndNothingStored = async (photo: Uint8Array, code: Code, reason: string, message: string) => {
    const scan = await consentedScan(c);
    await refused(upload(photo, scan), code, reason, message);
    assert.equal(await storedPhoto(scan.runId), undefined);
    const { state } = await c.intake.openPage({ runId: scan.runId, browserSecret: scan.secret });
    assert.equal(state?.status, ScanStatus.AWAITING_UPLOAD);
  };

  it('takes a real face photo: stored as JPEG, scan queued with its analysis job, in one go', async () => {
    const scan = await consentedScan(c);
    const { state } = await upload(face, scan);
    assert.equal(state?.status, ScanStatus.QUEUED);
    assert.equal(state?.isConsentingBrowser, true);
    const stored = await storedPhoto(scan.runId);
    assert.equal(stored?.content_type, 'image/jpeg');
    const meta = await sharp(stored!.image).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 583, 583]);
    const jobs = await sql(
      `select count(*)::int as n from graphile_worker.jobs where task_identifier = ? and key = ?`,
      [ANALYZE_TASK, scan.runId],
    );
    assert.equal(jobs[0]?.n, 1);
    const agent = await c.scans.getScan({ runId: scan.runId, accessToken: scan.accessToken });
    assert.equal(agent.scan?.status, ScanStatus.QUEUED);
  });

  it('strips EXIF (with GPS), ICC and XMP, and turns the photo upright by its orientation', async () => {
    const wide = await sharp(face).resize(400, 300, { fit: 'fill' }).toBuffer();
    const tagged = await sharp(wide)
      .withExif({
        IFD0: { Make: 'TestCam', Copyright: 'Jane Doe, 12 Rue Example' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 2406/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 21/1 300/100',
        },
      })
      .withMetadata({ orientation: 6 })
      .withIccProfile('p3')
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>')
      .jpeg()
      .toBuffer();
    const before = await sharp(tagged).metadata();
    // The test photo does carry it all: a GPS IFD pointer (tag 0x8825, little-endian), a name, a profile.
    assert.ok(before.exif?.includes(Buffer.from([0x25, 0x88])), 'GPS IFD present before');
    assert.ok(before.exif?.includes(Buffer.from('Jane Doe')));
    assert.ok(before.icc && before.xmp);
    assert.deepEqual([before.width, before.height, before.orientation], [400, 300, 6]);

    const scan = await consentedScan(c);
    await upload(tagged, scan);
    const stored = (await storedPhoto(scan.runId))!.image;
    const after = await sharp(stored).metadata();
    assert.equal(after.exif, undefined);
    assert.equal(after.icc, undefined);
    assert.equal(after.xmp, undefined);
    assert.equal(after.iptc, undefined);
    assert.equal(after.comments, undefined);
    assert.equal(after.orientation, undefined);
    assert.equal(after.hasProfile, false);
    assert.deepEqual([after.width, after.height], [300, 400], 'rotated upright by the EXIF orientation');
    for (const text of ['Jane Doe', 'TestCam', 'GPS', 'xmpmeta'])
      assert.equal(stored.includes(text), false, text);
  });

  it('takes PNG and WebP too, stored as JPEG; large photos are scaled to 2048 px', async () => {
    const png = await sharp(face).png().toBuffer();
    const webp = await sharp(face).resize(2400, 2400).webp().toBuffer();
    for (const [photo, side] of [
      [png, 583],
      [webp, 2048],
    ] as const) {
      const scan = await consentedScan(c);
      await upload(photo, scan);
      const meta = await sharp((await storedPhoto(scan.runId))!.image).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', side, side]);
    }
  });

  it('refuses what is not a JPEG, PNG or WebP by its bytes: not_an_image', async () => {
    const message = 'The file is not a JPEG, PNG or WebP image.';
    const code = Code.InvalidArgument;
    const small = sharp(face).resize(64);
    await refusedAndNothingStored(
      Buffer.from('<html><body>hello</body></html>'),
      code,
      'not_an_image',
      message,
    );
    // An empty file (a copy that never happened, a cloud photo not yet downloaded) is said to be empty.
    const empty = 'The file is empty; choose the photo again.';
    await refusedAndNothingStored(new Uint8Array(0), code, 'not_an_image', empty);
    await refusedAndNothingStored(await small.clone().gif().toBuffer(), code, 'not_an_image', message);
    await refusedAndNothingStored(await small.clone().avif().toBuffer(), code, 'not_an_image', message);
    await refusedAndNothingStored(await small.clone().tiff().toBuffer(), code, 'not_an_image', message);
  });

  it('refuses a polyglot: an image with HTML or a zip archive after it', async () => {
    const message = 'The file holds more than an image.';
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const zip = Buffer.from('504b0304140000000800', 'hex');
    const png = await sharp(face).png().toBuffer();
    const webp = await sharp(face).webp().toBuffer();
    for (const image of [face, png]) {
      for (const tail of [html, zip]) {
        const polyglot = Buffer.concat([image, tail]);
        await refusedAndNothingStored(polyglot, Code.InvalidArgument, 'not_an_image', message);
      }
    }
    // WebP: the RIFF size no longer covers the file.
    await refusedAndNothingStored(Buffer.concat([webp, html]), Code.InvalidArgument, 'not_an_image', message);
  });

  it('refuses a file whose first bytes promise an image it does not hold', async () => {
    const message = 'The file is damaged or not an image the service can read.';
    // Cut short (an interrupted copy): JPEG, PNG and WebP, told apart from a file with more after its image.
    const png = await sharp(face).png().toBuffer();
    const webp = await sharp(face).webp().toBuffer();
    for (const whole of [face, png, webp]) {
      await refusedAndNothingStored(
        whole.subarray(0, Math.floor(whole.length / 2)),
        Code.InvalidArgument,
        'not_an_image',
        'The image in the file is cut short or damaged before its end; send the whole photo again.',
      );
    }
    // Magic and structure of a JPEG, garbage inside: a well-formed frame that cannot be decoded.
    const garbage = Buffer.concat([
      Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'),
      Buffer.from('ffda000c03010002110311003f00', 'hex'),
      Buffer.alloc(64, 0x12),
      Buffer.from('ffd9', 'hex'),
    ]);
    await refusedAndNothingStored(garbage, Code.InvalidArgument, 'not_an_image', message);
  });

  it('takes a JPEG with more images after it that its MPF segment declares: a gain map, a camera preview', async () => {
    // As phones write an HDR photo (Ultra HDR: EXIF, MPF, a quarter-size grey gain map appended) and cameras
    // a photo with its previews (big-endian MPF). Only the first image is kept.
    const exif = await sharp(face)
      .withExif({ IFD0: { Make: 'TestPhone' } })
      .jpeg({ quality: 95 })
      .toBuffer();
    const gainMap = await sharp(face).resize(146).greyscale().jpeg().toBuffer();
    const previews = [
      await sharp(face).resize(400).jpeg().toBuffer(),
      await sharp(face).resize(160).jpeg().toBuffer(),
    ];
    for (const photo of [mpfJpeg(exif, [gainMap]), mpfJpeg(face, previews, { bigEndian: true })]) {
      const scan = await consentedScan(c);
      const { state } = await upload(photo, scan);
      assert.equal(state?.status, ScanStatus.QUEUED);
      const stored = (await storedPhoto(scan.runId))!.image;
      const meta = await sharp(stored).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.channels], ['jpeg', 583, 583, 3]);
      assert.equal(stored.includes('MPF'), false);
    }
  });

  it('refuses what MPF does not account for: bytes after its images, an image that is none, one cut short', async () => {
    const gainMap = await sharp(face).resize(146).greyscale().jpeg().toBuffer();
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const more = 'The file holds more than an image.';
    await refusedAndNothingStored(
      Buffer.concat([mpfJpeg(face, [gainMap]), html]),
      Code.InvalidArgument,
      'not_an_image',
      more,
    );
    await refusedAndNothingStored(mpfJpeg(face, [html]), Code.InvalidArgument, 'not_an_image', more);
    // A declared size that takes in what follows the image: the image ends before MPF says it does.
    const smuggled = mpfJpeg(face, [Buffer.concat([gainMap, html])], {
      declaredSizes: [0, gainMap.length + html.length],
    });
    await refusedAndNothingStored(smuggled, Code.InvalidArgument, 'not_an_image', more);
    const whole = mpfJpeg(face, [gainMap]);
    await refusedAndNothingStored(
      whole.subarray(0, whole.length - 100),
      Code.InvalidArgument,
      'not_an_image',
      'The image in the file is cut short or damaged before its end; send the whole photo again.',
    );
  });

  it('refuses a photo over PHOTO_MAX_BYTES: photo_too_large', async () => {
    // The size is checked first, on the bytes as they came: one byte over is enough.
    const big = Buffer.concat([face, Buffer.alloc(2 * 1024 * 1024 + 1 - face.length)]);
    assert.equal(big.length, 2 * 1024 * 1024 + 1);
    await refusedAndNothingStored(
      big,
      Code.InvalidArgument,
      'photo_too_large',
      'The photo is larger than 2 MB; choose a smaller one.',
    );
  });

  it('refuses a pixel bomb from its header, before decoding: photo_too_many_pixels', async () => {
    const bomb = pixelBomb(); // a few dozen bytes declaring 30000 × 30000
    assert.ok(bomb.length < 200);
    await refusedAndNothingStored(
      bomb,
      Code.InvalidArgument,
      'photo_too_many_pixels',
      'The photo has more than 40 megapixels; choose a smaller one.',
    );
  });

  it('after complete, uploads are closed; after failed, a retake is taken', async () => {
    const scan = await consentedScan(c);
    await upload(face, scan);
    await completeScan(stack.orm, scan.runId, HEALTHY_SCORES);
    await refused(
      upload(face, scan),
      Code.FailedPrecondition,
      'upload_closed',
      'This scan is complete; it takes no more photos.',
    );
    const retake = await consentedScan(c);
    await upload(face, retake);
    await setScanStatus(stack.orm, retake.runId, 'failed');
    const { state } = await upload(face, retake);
    assert.equal(state?.status, ScanStatus.QUEUED);
  });

  it('storing a photo decides on the locked row: a scan completed or deleted meanwhile takes none', async () => {
    // What UploadPhoto meets when the analysis completes, or the scan is deleted, while a retake is checked.
    const scan = await consentedScan(c);
    await upload(face, scan);
    await completeScan(stack.orm, scan.runId, HEALTHY_SCORES);
    await refused(
      storePhoto(stack.orm.em.fork(), scan.runId, face, 'image/jpeg'),
      Code.FailedPrecondition,
      'upload_closed',
    );
    const agent = await c.scans.getScan({ runId: scan.runId, accessToken: scan.accessToken });
    assert.equal(agent.scan?.status, ScanStatus.COMPLETE);
    assert.equal(agent.scan?.scores.length, Object.keys(HEALTHY_SCORES).length);
    await sql('delete from scans where id = ?', [scan.runId]);
    await refused(
      storePhoto(stack.orm.em.fork(), scan.runId, face, 'image/jpeg'),
      Code.NotFound,
      'not_found',
    );
  });

  it('each scan takes a limited number of photos an hour: rate_limited with retry_after_seconds', async () => {
    const scan = await consentedScan(c);
    const notAnImage = Buffer.from('not an image');
    for (let i = 0; i < UPLOADS_PER_HOUR; i++) {
      await refused(upload(notAnImage, scan), Code.InvalidArgument, 'not_an_image');
    }
    const error = await refused(
      upload(face, scan),
      Code.ResourceExhausted,
      'rate_limited',
      /^Too many photos/,
    );
    const { ErrorInfoSchema } = await import('../../gen/google/rpc/error_details_pb.ts');
    const retry = Number(error.findDetails(ErrorInfoSchema)[0]?.metadata.retry_after_seconds);
    assert.ok(retry > 3500 && retry <= 3600, String(retry));
    assert.equal(await storedPhoto(scan.runId), undefined);
    // Another scan is not affected; an hour later this one takes photos again.
    await upload(face);
    stack.clock.offsetMs = 3600 * 1000 + 1000;
    const { state } = await upload(face, scan);
    assert.equal(state?.status, ScanStatus.QUEUED);
  });
});
