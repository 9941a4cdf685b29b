/**
 * A photo from the upload page, checked before anything is stored and cleaned before it is: the size bound,
 * the type by magic bytes and file structure (image-format.ts), no more metadata segments than a photo has
 * (libvips would keep every one in memory), the pixel bound from the header alone (a
 * decompression bomb is refused before a single pixel is decoded), then one decode that applies the EXIF
 * orientation, scales to the page's own 2048 px bound and re-encodes as JPEG without any metadata (no EXIF,
 * GPS, ICC profile, XMP or comments survive; the pixels are converted to sRGB first).
 *
 * A file sharp cannot read is the sender's fault (`not_an_image`); sharp failing for any other reason (out
 * of memory, a broken library) is the service's, and surfaces as an internal error, never as a refusal of
 * the person's photo.
 */
import sharp from 'sharp';
import { serviceError } from '../shared/errors.ts';
import { blameImageError } from '../shared/image-errors.ts';
import {
  CONTENT_TYPES,
  type ImageFormat,
  imageEnd,
  imageFormat,
  jpegScans,
  metadataSegments,
  webpFrames,
} from './image-format.ts';

export interface PhotoLimits {
  /** Bytes of one photo (PHOTO_MAX_BYTES). */
  readonly maxBytes: number;
  /** Width × height by the header (PHOTO_MAX_PIXELS). */
  readonly maxPixels: number;
}

export interface CleanPhoto {
  readonly image: Buffer;
  readonly contentType: string;
}

/**
 * No operation of libvips is kept once a photo is checked: its cache (by default up to 100 operations,
 * counted at 50 MB) reuses nothing here, every upload being new bytes, and a cached JPEG load keeps its
 * decoder's memory, which the cache does not count. Measured: eight 40-megapixel progressive JPEGs
 * checked one after the other left core 1.1 GB larger with the cache, 0.24 GB without.
 */
sharp.cache(false);

/** The longest side kept: the page scales to it in the browser, and analysis works at 1024 px. */
export const STORED_MAX_SIDE = 2048;
const STORED_QUALITY = 92;

/** Metadata segments (image-format.ts) a photo may hold: far above any photo's, far below a costly count. */
export const MAX_METADATA_SEGMENTS = 1000;
/** Frames of an animated WebP (image-format.ts): a 30-second animation's, far below a costly count. */
export const MAX_FRAMES = 1000;
/** Scans of a JPEG (image-format.ts): as many as cjpeg's scan scripts take, ten times an encoder's. */
export const MAX_SCANS = 100;

export const CUT_SHORT_MESSAGE =
  'The image in the file is cut short or damaged before its end; send the whole photo again.';

/** sharp failed for a reason of its own, not because of the file. */
export class PhotoFault extends Error {}

export async function checkPhoto(photo: Uint8Array, limits: PhotoLimits): Promise<CleanPhoto> {
  const bytes = Buffer.from(photo.buffer, photo.byteOffset, photo.byteLength);
  if (bytes.length > limits.maxBytes) {
    throw serviceError(
      'photo_too_large',
      `The photo is larger than ${formatBytes(limits.maxBytes)}; choose a smaller one.`,
    );
  }
  if (bytes.length === 0) throw notAnImage('The file is empty; choose the photo again.');
  const format = imageFormat(bytes);
  if (!format) throw notAnImage('The file is not a JPEG, PNG or WebP image.');
  const end = imageEnd(bytes, format);
  // A file cut short (an upload or a copy interrupted) is told apart from one with more after its image.
  if (end === undefined || end > bytes.length) throw notAnImage(CUT_SHORT_MESSAGE);
  if (end < bytes.length) throw notAnImage('The file holds more than an image.');
  checkCostlyParts(bytes, format);
  const header = await checkHeader(bytes, format, limits.maxPixels);
  const release = await decodeTurn(frameBytes(header));
  try {
    const decode = sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'error' })
      .rotate()
      .resize({ width: STORED_MAX_SIDE, height: STORED_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb');
    // sharp turns a 16-bit image's embedded profile into Display P3, not sRGB, and toColourspace('srgb')
    // then only narrows the samples: the P3 numbers would be stored as sRGB. The output transform from the
    // working space to sRGB, not attached, ends at sRGB for every depth (a no-op for 8-bit inputs). Only
    // with a profile: without one, sharp would take a 16-bit image for P3.
    if (header.hasProfile) decode.withIccProfile('srgb', { attach: false });
    const image = await decode.jpeg({ quality: STORED_QUALITY }).toBuffer();
    return { image, contentType: CONTENT_TYPES.jpeg };
  } catch (err) {
    throw fileOrFault(err);
  } finally {
    release();
  }
}

/**
 * Parts whose number costs libvips memory or time, counted from the bytes before sharp reads any: reading
 * the header alone keeps every metadata segment and walks every frame of an animated WebP, and decoding
 * passes over the whole frame for each scan of a progressive JPEG.
 */
function checkCostlyParts(bytes: Buffer, format: ImageFormat): void {
  if (metadataSegments(bytes, format) > MAX_METADATA_SEGMENTS) {
    throw notAnImage(
      `The file holds more metadata than a photo: over ${MAX_METADATA_SEGMENTS} segments of it.`,
    );
  }
  if (format === 'jpeg' && jpegScans(bytes) > MAX_SCANS) {
    throw notAnImage(`The JPEG holds more scans of its image than any camera writes: over ${MAX_SCANS}.`);
  }
  if (format === 'webp' && webpFrames(bytes) > MAX_FRAMES) {
    throw notAnImage(`The file is an animation of more than ${MAX_FRAMES} frames, not a photo.`);
  }
}

/**
 * Photos decoded at once by one process; the others wait their turn, in order. What one decode holds
 * depends on the file, not its size: a 40-megapixel progressive JPEG of 233 kB (within both bounds) took
 * 160 MB while decoding, and eight at once 1.1 GB — past core's 768 Mi memory limit, which would have
 * restarted core, every call it was serving included. So at most two decode at once, and together at most
 * DECODE_FRAME_BUDGET bytes of decoded frames (frameBytes, from the header): a decode that holds its whole
 * frame at once is as large as its pixels times their bytes, and those are not all 3 bytes a pixel. A 40 MP
 * interlaced PNG of 16-bit RGBA (482 kB) holds 320 MB of frame: one took 400 MB while decoding, two at once
 * 790 MB (measured). A decode over the budget on its own runs alone. The photos the upload page sends (at
 * most 2048 px, 12 MB of frame) take ~30 ms each, so a turn is rarely waited for.
 */
export const PHOTO_DECODES_AT_ONCE = 2;
/** Two 40-megapixel 8-bit RGB frames: two such progressive JPEGs took ~320 MB at once. */
export const DECODE_FRAME_BUDGET = 2 * 40_000_000 * 3;
let decoding = 0;
let framesHeld = 0;
const waiting: { readonly frame: number; readonly start: () => void }[] = [];

/** Bytes of the whole decoded frame, by the header: pixels × bands × bytes per sample. */
export function frameBytes(header: Omit<PhotoHeader, 'hasProfile'>): number {
  const sampleBytes = SAMPLE_BYTES[header.depth] ?? 8;
  return header.width * header.height * header.channels * sampleBytes;
}

const SAMPLE_BYTES: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
};

function mayStart(frame: number): boolean {
  if (decoding === 0) return true; // over the budget on its own: it runs alone
  return decoding < PHOTO_DECODES_AT_ONCE && framesHeld + frame <= DECODE_FRAME_BUDGET;
}

async function decodeTurn(frame: number): Promise<() => void> {
  if (waiting.length > 0 || !mayStart(frame)) {
    await new Promise<void>((start) => waiting.push({ frame, start }));
  } else {
    decoding++;
    framesHeld += frame;
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    decoding--;
    framesHeld -= frame;
    // In order: the first waiting decode starts when it fits, and none overtakes it.
    while (waiting.length > 0 && mayStart(waiting[0]!.frame)) {
      const next = waiting.shift()!;
      decoding++;
      framesHeld += next.frame;
      next.start();
    }
  };
}

export interface PhotoHeader {
  readonly width: number;
  readonly height: number;
  readonly channels: number;
  readonly depth: string;
  /** An embedded ICC profile. */
  readonly hasProfile: boolean;
}

/** The header must describe the same format as the magic bytes, with at most `maxPixels` pixels. */
async function checkHeader(bytes: Buffer, format: ImageFormat, maxPixels: number): Promise<PhotoHeader> {
  let width: number;
  let height: number;
  let channels: number;
  let depth: string;
  let hasProfile: boolean;
  try {
    // Reads the header only; no pixel limit here, the bound is ours and checked below.
    const header = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (header.format !== format) throw notAnImage('The file is not the image its first bytes announce.');
    width = header.width;
    height = header.height;
    channels = header.channels;
    depth = header.depth;
    hasProfile = header.icc !== undefined;
  } catch (err) {
    throw fileOrFault(err);
  }
  if (!(width > 0 && height > 0)) throw notAnImage('The image has no pixels.');
  if (width * height > maxPixels) {
    throw serviceError(
      'photo_too_many_pixels',
      `The photo has more than ${Math.floor(maxPixels / 1_000_000)} megapixels; choose a smaller one.`,
    );
  }
  return { width, height, channels, depth, hasProfile };
}

export function fileOrFault(err: unknown): Error {
  if (err instanceof Error && 'rawMessage' in err) return err; // already one of ours (a ConnectError)
  const blame = blameImageError(err);
  if (blame === 'too_many_pixels') {
    return serviceError('photo_too_many_pixels', 'The photo has more pixels than the service accepts.');
  }
  if (blame === 'service') {
    return new PhotoFault(`photo processing failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  return notAnImage('The file is damaged or not an image the service can read.');
}

function notAnImage(message: string) {
  return serviceError('not_an_image', message);
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
