/**
 * UploadPhoto over Connect on a real core: files whose parts cost the image library memory or time by
 * their number alone — metadata segments by the hundred thousand, an animation of tens of thousands of
 * frames, a progressive JPEG of hundreds of scans — are refused from their bytes, before sharp reads them;
 * photos' own numbers of them are taken.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { Code } from '@connectrpc/connect';
import sharp from 'sharp';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { singleFace } from '../inference/support/photos.ts';
import { testIntake } from '../support/intake.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { manyScanJpeg } from './many-scans.ts';
import { type Clients, clients, consentedScan, refused } from './support.ts';

/** A WebP's chunks after its RIFF header, each whole (header, data, padding). */
function webpChunks(webp: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 12; i + 8 <= webp.length; ) {
    const size = webp.readUInt32LE(i + 4);
    chunks.push(webp.subarray(i, i + 8 + size + (size & 1)));
    i += 8 + size + (size & 1);
  }
  return chunks;
}

function riff(chunks: readonly Buffer[]): Buffer {
  const file = Buffer.concat([Buffer.from('RIFF\0\0\0\0WEBP', 'latin1'), ...chunks]);
  file.writeUInt32LE(file.length - 8, 4);
  return file;
}

describe('IntakeService.UploadPhoto: files of costly parts, refused before they are read', () => {
  let stack: Stack;
  let c: Clients;
  let face: Buffer;

  before(async () => {
    stack = await startStack('intake-costly-parts', { intake: testIntake({ maxBytes: 2 * 1024 * 1024 }) });
    c = clients(stack);
    face = await singleFace('a');
  });
  after(() => stack?.close());

  const upload = async (photo: Uint8Array) => {
    const { runId, secret } = await consentedScan(c);
    const { state } = await c.intake.uploadPhoto({ runId, browserSecret: secret, photo });
    return state?.status;
  };
  const notAnImage = async (photo: Uint8Array, message: string) => {
    const { runId, secret } = await consentedScan(c);
    await refused(
      c.intake.uploadPhoto({ runId, browserSecret: secret, photo }),
      Code.InvalidArgument,
      'not_an_image',
      message,
    );
    const stored = await stack.orm.em
      .getConnection()
      .execute('select 1 from scan_photos where run_id = ?', [runId]);
    assert.equal(stored.length, 0);
  };

  it('metadata segments by the hundred thousand (JPEG APP1, APP2, APP13; PNG zTXt); a photo’s many are taken', async () => {
    // Each segment libvips keeps costs it ~265 bytes: a 10 MB file of them took core 690 MB to read.
    const segments = (marker: number, count: number, payload: Buffer) => {
      const one = Buffer.concat([Buffer.from([0xff, marker, 0, 0]), payload]);
      one.writeUInt16BE(2 + payload.length, 2);
      return Buffer.concat(Array.from({ length: count }, () => one));
    };
    const withSegments = (jpeg: Buffer, more: Buffer) =>
      Buffer.concat([jpeg.subarray(0, 2), more, jpeg.subarray(2)]);
    const message = 'The file holds more metadata than a photo: over 1000 segments of it.';
    for (const marker of [0xe1, 0xe2, 0xed]) {
      await notAnImage(withSegments(face, segments(marker, 400_000, Buffer.alloc(0))), message);
    }
    const png = await sharp(face).resize(100).png().toBuffer();
    const zTxt = Buffer.concat([Buffer.from('zTXtc\0\0', 'latin1'), zlib.deflateSync('x')]);
    const chunk = Buffer.concat([Buffer.alloc(4), zTxt, Buffer.alloc(4)]);
    chunk.writeUInt32BE(zTxt.length - 4);
    chunk.writeUInt32BE(zlib.crc32(zTxt), 4 + zTxt.length);
    const texts = Buffer.concat(Array.from({ length: 60_000 }, () => chunk));
    await notAnImage(Buffer.concat([png.subarray(0, 33), texts, png.subarray(33)]), message);
    // A photo's own: XMP in 150 pieces of 10 kB (extended XMP), taken.
    const xmp = Buffer.concat([
      Buffer.from('http://ns.adobe.com/xmp/extension/\0', 'latin1'),
      Buffer.alloc(10_000, 0x20),
    ]);
    assert.equal(await upload(withSegments(face, segments(0xe1, 150, xmp))), ScanStatus.QUEUED);
  });

  it('an animated WebP of 30 000 frames (2.2 s to read, growing with their square); one of 1000 is taken, its first frame', async () => {
    // The face, then small frames laid over a corner of it, as an animation's later frames often are
    // (an ANMF chunk of an 8×8 animation: its frame at the canvas's top left corner).
    const corner = (colour: string) =>
      sharp({ create: { width: 8, height: 8, channels: 3, background: colour } })
        .png()
        .toBuffer();
    const animation = (frames: Buffer[]) =>
      sharp(frames, { join: { animated: true } })
        .webp({ loop: 0 })
        .toBuffer();
    const faceChunks = webpChunks(await animation([face, await sharp(face).flop().toBuffer()]));
    const frame = webpChunks(await animation([await corner('#c98'), await corner('#123')])).at(-1)!;
    assert.deepEqual(
      [...faceChunks, frame].map((chunk) => chunk.toString('latin1', 0, 4)),
      ['VP8X', 'ANIM', 'ANMF', 'ANMF', 'ANMF'],
    );
    const withFrames = (n: number) => riff([...faceChunks, ...Array.from({ length: n - 2 }, () => frame)]);
    await notAnImage(withFrames(30_000), 'The file is an animation of more than 1000 frames, not a photo.');
    // At the bound: taken, its first frame stored.
    const { runId, secret } = await consentedScan(c);
    await c.intake.uploadPhoto({ runId, browserSecret: secret, photo: withFrames(1000) });
    const [stored] = await stack.orm.em
      .getConnection()
      .execute('select image from scan_photos where run_id = ?', [runId]);
    const meta = await sharp(stored!.image).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height, meta.pages], ['jpeg', 583, 583, undefined]);
  });

  it('a progressive JPEG of 896 scans (a valid progression: 7.8 s to check at 36 MP); photos’ progressions are taken', async () => {
    await notAnImage(
      manyScanJpeg(2000, 2000),
      'The JPEG holds more scans of its image than any camera writes: over 100.',
    );
    assert.equal(await upload(manyScanJpeg(2000, 2000, 100)), ScanStatus.QUEUED);
    for (const options of [{ progressive: true }, { progressive: true, mozjpeg: true }]) {
      assert.equal(await upload(await sharp(face).jpeg(options).toBuffer()), ScanStatus.QUEUED);
    }
  });
});
