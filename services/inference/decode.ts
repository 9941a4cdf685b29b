/**
 * Decoding: any image sharp reads, turned upright by its EXIF orientation, scaled once to the working size
 * (JPEG shrink-on-load makes this cheap even for 12-megapixel photos) and returned as packed RGB. A pixel
 * bound refuses decompression bombs before any pixel is decoded.
 */
import sharp from 'sharp';
import { blameImageError } from '../shared/image-errors.ts';

/** Longest side of the working image: faces stay well above the measures' patch size. */
export const WORKING_SIZE = 1024;
/** Larger inputs are refused: 64 megapixels is far beyond any phone camera. */
export const MAX_INPUT_PIXELS = 64_000_000;

export interface RgbImage {
  readonly data: Uint8Array;
  readonly width: number;
  readonly height: number;
}

export class ImageError extends Error {
  readonly reason: 'not_an_image' | 'image_too_large';

  constructor(reason: 'not_an_image' | 'image_too_large', message: string) {
    super(message);
    this.reason = reason;
  }
}

export async function decodeImage(input: Uint8Array): Promise<RgbImage> {
  try {
    const { data, info } = await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: WORKING_SIZE, height: WORKING_SIZE, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3)
      throw new ImageError('not_an_image', 'The image has no colour channels to measure.');
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
    };
  } catch (err) {
    throw inputFault(err) ?? err;
  }
}

/**
 * Frees the decoded pixels at once, when the analysis is done with them, rather than when V8's collector
 * next runs. Their 2.4 MB buffer (a 1024-pixel image) lies outside V8's heap, which counts it towards the
 * limit at which a full collection starts: left to the collector, decoded images alone made it run one
 * every 7 photos or so. Detaching the buffer (`transfer(0)`) runs sharp's own free at once; the image
 * reads as empty from then on. Only a buffer the image has to itself, as decodeImage returns it.
 */
export function releaseImage(image: RgbImage): void {
  const { buffer, byteOffset, byteLength } = image.data;
  if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength)
    buffer.transfer(0);
}

/**
 * The person's file as the reason it cannot be used, or undefined when the failure is the server's
 * (memory, libvips itself, a bug): that one must not tell the person their photo is bad, so it is thrown
 * as it is, the analysis attempt fails, and the scan worker retries it.
 */
export function inputFault(err: unknown): ImageError | undefined {
  if (err instanceof ImageError) return err;
  const blame = blameImageError(err);
  if (blame === 'too_many_pixels') {
    return new ImageError('image_too_large', 'The image has more pixels than the service accepts.');
  }
  if (blame === 'file')
    return new ImageError('not_an_image', 'The file is not an image the service can read.');
  return undefined;
}
