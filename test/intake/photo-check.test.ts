/**
 * The photo checks on their own: which sharp failures are the file's fault and which are the service's,
 * and the byte-level format checks on edge cases the service tests do not reach.
 */
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { ConnectError } from '@connectrpc/connect';
import sharp from 'sharp';
import { endsWithImage, imageFormat } from '../../services/intake/image-format.ts';
import {
  checkPhoto,
  DECODE_FRAME_BUDGET,
  fileOrFault,
  frameBytes,
  PHOTO_DECODES_AT_ONCE,
  PhotoFault,
} from '../../services/intake/photo-check.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { singleFace } from '../inference/support/photos.ts';

/** sharp's own error for `bytes`, as thrown when decoding. */
async function sharpError(bytes: Buffer): Promise<Error> {
  try {
    await sharp(bytes, { failOn: 'error' }).jpeg().toBuffer();
  } catch (err) {
    return err as Error;
  }
  throw new Error('sharp decoded it');
}

describe('photo checks', () => {
  it('sharp refusing the file is not_an_image; sharp failing on its own is a service fault', async () => {
    const face = await singleFace('c');
    const png = await sharp(face).png().toBuffer();
    const fileErrors = [
      await sharpError(face.subarray(0, 800)),
      await sharpError(png.subarray(0, Math.floor(png.length / 2))),
      await sharpError(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 garbage', 'latin1')),
      await sharpError(Buffer.from('plain text')),
    ];
    for (const err of fileErrors) assert.equal(errorReason(fileOrFault(err)), 'not_an_image', err.message);

    const faults = [
      new Error('vips_malloc: out of memory --- size == 1048576'),
      new Error('VipsJpeg: Insufficient memory (case 4)'),
      new Error('std::bad_alloc'),
      new Error('Cannot create thread'),
    ];
    for (const err of faults) {
      const mapped = fileOrFault(err);
      assert.ok(mapped instanceof PhotoFault, err.message);
      assert.ok(!(mapped instanceof ConnectError));
    }
    assert.equal(
      errorReason(fileOrFault(new Error('Input image exceeds pixel limit'))),
      'photo_too_many_pixels',
    );
  });

  it('finds the end of baseline, progressive and EXIF-carrying JPEGs, of odd-sized WebP and of palette PNG', async () => {
    const face = await singleFace('d');
    const variants = [
      await sharp(face).jpeg({ progressive: true }).toBuffer(),
      await sharp(face).jpeg({ mozjpeg: true }).toBuffer(),
      await sharp(face)
        .withExif({ IFD0: { Make: 'x' } })
        .jpeg()
        .toBuffer(),
      await sharp(face).resize(33, 17).webp({ lossless: true }).toBuffer(),
      await sharp(face).resize(33, 17).png({ palette: true }).toBuffer(),
    ];
    for (const bytes of variants) {
      const format = imageFormat(bytes);
      assert.ok(format);
      assert.equal(endsWithImage(bytes, format), true, format);
      assert.equal(endsWithImage(Buffer.concat([bytes, Buffer.from([0])]), format), false, format);
    }
    assert.equal(imageFormat(Buffer.from([0xff, 0xd8])), undefined);
    assert.equal(imageFormat(Buffer.from('GIF89a')), undefined);
  });

  it('keeps nothing of a checked photo in sharp: no cached operation holds its decoder memory', async () => {
    const face = await singleFace('a');
    await checkPhoto(await sharp(face).jpeg({ progressive: true }).toBuffer(), {
      maxBytes: 10 * 1024 * 1024,
      maxPixels: 40_000_000,
    });
    const { items, files } = sharp.cache();
    assert.deepEqual([items.current, files.current], [0, 0]);
  });

  /**
   * The most photos sharp decoded at once in its worker threads, from the first photo done to the last (the
   * header reads, queued first, are over by then): on the old code all four of libuv's threads decoded at once.
   */
  async function mostDecodingAtOnce(photos: Buffer[]): Promise<number> {
    const limits = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 };
    let first = false;
    let most = 0;
    const sampler = setInterval(() => {
      if (first) most = Math.max(most, sharp.counters().process);
    }, 2);
    try {
      const checks = photos.map((photo) =>
        checkPhoto(photo, limits).then((checked) => {
          first = true;
          return checked;
        }),
      );
      for (const checked of await Promise.all(checks)) {
        assert.equal((await sharp(checked.image).metadata()).width, 2048);
      }
    } finally {
      clearInterval(sampler);
    }
    return most;
  }

  it('decodes at most two photos at once: eight 40-megapixel progressive JPEGs wait their turn', async () => {
    // 233 kB each, within both bounds, yet 160 MB each while decoding: eight at once took 1.1 GB.
    const large = await sharp({
      create: { width: 6300, height: 6300, channels: 3, background: { r: 200, g: 150, b: 120 } },
    })
      .jpeg({ progressive: true })
      .toBuffer();
    const most = await mostDecodingAtOnce(Array.from({ length: 8 }, () => large));
    assert.equal(PHOTO_DECODES_AT_ONCE, 2);
    assert.ok(most >= 1 && most <= PHOTO_DECODES_AT_ONCE, `${most} decoding at once`);
  });

  it('decodes a photo whose frame is over the budget alone: 31-megapixel interlaced 16-bit RGBA PNGs one by one', async () => {
    // 6000 × 5200 × 4 bands × 2 bytes = 250 MB of frame, held whole (interlaced), from a file of ~350 kB;
    // the 40 MP one took 400 MB while decoding, two at once 790 MB: past core's 768 Mi limit.
    const bomb = await sharp({
      create: { width: 6000, height: 5200, channels: 4, background: { r: 200, g: 150, b: 120, alpha: 0.5 } },
    })
      .toColourspace('rgb16')
      .png({ progressive: true, compressionLevel: 9 })
      .toBuffer();
    const header = await sharp(bomb).metadata();
    assert.equal(header.isProgressive, true);
    assert.equal(frameBytes(header), 6000 * 5200 * 4 * 2);
    assert.ok(frameBytes(header) > DECODE_FRAME_BUDGET);
    const most = await mostDecodingAtOnce(Array.from({ length: 4 }, () => bomb));
    assert.equal(most, 1, `${most} decoding at once`);
  });

  it('counts a frame by its bands and their depth: 8-bit RGB, greyscale, 16-bit RGB, RGBA and CMYK', () => {
    const frame = (channels: number, depth: string) =>
      frameBytes({ width: 100, height: 10, channels, depth });
    assert.deepEqual(
      [frame(3, 'uchar'), frame(1, 'uchar'), frame(3, 'ushort'), frame(4, 'uchar'), frame(4, 'ushort')],
      [3000, 1000, 6000, 4000, 8000],
    );
    // Two 40 MP photos of 8-bit RGB fit together, as before; one of 16-bit RGB does not fit beside another.
    assert.ok(2 * frame(3, 'uchar') * 40_000 <= DECODE_FRAME_BUDGET);
    assert.ok(frame(3, 'ushort') * 40_000 + frame(3, 'uchar') * 40_000 > DECODE_FRAME_BUDGET);
  });

  it('converts by the embedded profile to sRGB at 16 bits too: a 16-bit PNG tagged sRGB or Display P3', async () => {
    // The same samples (200, 120, 100) at 8 and 16 bits, each given an iCCP chunk as an editor writes it.
    const colour = {
      create: { width: 64, height: 64, channels: 3 as const, background: { r: 200, g: 120, b: 100 } },
    };
    const png8 = await sharp(colour).png().toBuffer();
    const png16 = await sharp(colour).toColourspace('rgb16').png().toBuffer();
    const stored = async (png: Buffer, profile: 'srgb' | 'p3') => {
      const tagged = withIccp(png, await iccProfile(profile));
      const { image } = await checkPhoto(tagged, { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 });
      assert.equal((await sharp(image).metadata()).icc, undefined);
      return (await sharp(image).stats()).channels.map((c) => Math.round(c.mean));
    };
    const near = (actual: number[], expected: number[]) =>
      assert.ok(
        actual.every((v, i) => Math.abs(v - expected[i]!) <= 2),
        `${actual} stored, ${expected} expected`,
      );
    // On the old code the 16-bit ones came out as 188,123,105 (sRGB read as P3) and 201,120,101 (P3 kept).
    near(await stored(png16, 'srgb'), [200, 120, 100]);
    const p3In8Bits = await stored(png8, 'p3');
    near(p3In8Bits, [214, 115, 94]);
    near(await stored(png16, 'p3'), p3In8Bits);
    near(await stored(png8, 'srgb'), [200, 120, 100]);
  });
});

/** sharp's own ICC profile by name, as it embeds it. */
async function iccProfile(name: 'srgb' | 'p3'): Promise<Buffer> {
  const tagged = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .withIccProfile(name)
    .jpeg()
    .toBuffer();
  return (await sharp(tagged).metadata()).icc!;
}

/** The PNG with an iCCP chunk after its header: the profile given, its samples unchanged. */
function withIccp(png: Buffer, icc: Buffer): Buffer {
  const headerEnd = 8 + 12 + png.readUInt32BE(8);
  const data = Buffer.concat([Buffer.from('icc\0\0', 'latin1'), zlib.deflateSync(icc)]);
  const typed = Buffer.concat([Buffer.from('iCCP', 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typed));
  return Buffer.concat([png.subarray(0, headerEnd), length, typed, crc, png.subarray(headerEnd)]);
}
