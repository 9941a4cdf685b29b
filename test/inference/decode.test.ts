import assert from 'node:assert/strict';
import sharp from 'sharp';
import { decodeImage, ImageError, inputFault, releaseImage } from '../../services/inference/decode.ts';

const colour = { width: 120, height: 90, channels: 3 as const, background: '#a07050' };
const encoded = (format: 'jpeg' | 'png' | 'webp') => sharp({ create: colour }).toFormat(format).toBuffer();
const half = (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2));

async function decodeFailure(input: Uint8Array): Promise<unknown> {
  try {
    await decodeImage(input);
  } catch (err) {
    return err;
  }
  assert.fail('decoded');
}

describe('decoding: whose fault a failure is', () => {
  const unreadable: [string, () => Promise<Uint8Array>][] = [
    ['bytes that are no image', async () => Buffer.from('this is not a photo')],
    ['an empty file', async () => Buffer.alloc(0)],
    ['a JPEG cut in half', async () => half(await encoded('jpeg'))],
    ['a PNG cut in half', async () => half(await encoded('png'))],
    ['a WebP cut in half', async () => half(await encoded('webp'))],
    ['only the first 20 bytes of a JPEG', async () => (await encoded('jpeg')).subarray(0, 20)],
  ];
  for (const [title, make] of unreadable) {
    it(`${title}: the file's fault, not_an_image`, async () => {
      const err = await decodeFailure(await make());
      assert.ok(err instanceof ImageError, String(err));
      assert.equal(err.reason, 'not_an_image');
    });
  }

  it('a readable photo decodes', async () => {
    const image = await decodeImage(await encoded('png'));
    assert.deepEqual([image.width, image.height, image.data.length], [120, 90, 120 * 90 * 3]);
  });

  it('a decoded image is freed once released; a view of a larger buffer is left alone', async () => {
    const image = await decodeImage(await encoded('png'));
    releaseImage(image);
    assert.equal(image.data.length, 0);
    const larger = new Uint8Array(2 * 120 * 90 * 3).fill(7);
    releaseImage({ data: larger.subarray(0, 120 * 90 * 3), width: 120, height: 90 });
    assert.equal(larger.length, 2 * 120 * 90 * 3);
    assert.equal(larger[0], 7);
  });

  // libvips' own failures, as it words them: the server's fault, so not the person's reason.
  const serverFaults = [
    'vips_malloc: out of memory --- size == 48MB',
    'VipsJpeg: Insufficient memory (case 4)',
    'std::bad_alloc',
    'vips_threadset_run: unable to create thread',
    'VipsRegion: unable to allocate memory',
    "Cannot read properties of undefined (reading 'width')",
  ];
  for (const message of serverFaults) {
    it(`"${message}": the server's fault, thrown as it is (the attempt is retried), never not_an_image`, () => {
      assert.equal(inputFault(new Error(message)), undefined);
    });
  }

  it('a pixel bomb is image_too_large', () => {
    assert.equal(inputFault(new Error('Input image exceeds pixel limit'))?.reason, 'image_too_large');
  });
});
