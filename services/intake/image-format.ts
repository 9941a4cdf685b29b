/**
 * What a file is, by its bytes alone: the magic numbers of the formats the upload page accepts, and whether
 * the file ends where its own structure says the image ends. A file that carries anything after its image
 * (a JPEG with HTML or a zip archive appended: a polyglot) is refused rather than trimmed, so that nothing
 * but an image is ever taken in. HEIC is not among the formats: the sharp build here decodes HEIF only for
 * AVIF (its libheif has no HEVC decoder), and browsers hand the page JPEG from their photo pickers anyway.
 */
export type ImageFormat = 'jpeg' | 'png' | 'webp';

export const CONTENT_TYPES: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function imageFormat(bytes: Buffer): ImageFormat | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  return undefined;
}

/** True when the image's own structure ends exactly at the end of the file. */
export function endsWithImage(bytes: Buffer, format: ImageFormat): boolean {
  return imageEnd(bytes, format) === bytes.length;
}

/**
 * Where the image's own structure says it ends: undefined when it does not end within the file (cut
 * short, or damaged before its end); past the file's end when a declared size says so (WebP).
 */
export function imageEnd(bytes: Buffer, format: ImageFormat): number | undefined {
  return format === 'jpeg' ? jpegEnd(bytes) : format === 'png' ? pngEnd(bytes) : webpEnd(bytes);
}

/** Just past the JPEG's end-of-image marker: marker segments are skipped by their lengths, and entropy-coded
 * data after each start-of-scan runs to the next marker (0xFF not followed by 0x00 or a restart marker). */
function jpegEnd(b: Buffer): number | undefined {
  let i = 2;
  while (i + 1 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    if (marker === 0xff) {
      i += 1; // fill byte
    } else if (marker === 0xd9) {
      return i + 2;
    } else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2; // markers without a length
    } else {
      if (i + 3 >= b.length) return undefined;
      i += 2 + b.readUInt16BE(i + 2);
      if (marker === 0xda) i = nextMarker(b, i);
    }
  }
  return undefined;
}

function nextMarker(b: Buffer, from: number): number {
  let i = from;
  for (;;) {
    i = b.indexOf(0xff, i);
    if (i < 0 || i + 1 >= b.length) return b.length;
    const next = b[i + 1]!;
    if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7)) return i;
    i += 2;
  }
}

/** Just past the IEND chunk. */
function pngEnd(b: Buffer): number | undefined {
  let i = PNG_SIGNATURE.length;
  while (i + 8 <= b.length) {
    const length = b.readUInt32BE(i);
    const type = b.toString('latin1', i + 4, i + 8);
    i += 12 + length;
    if (type === 'IEND') return i;
  }
  return undefined;
}

/** The RIFF container's declared size. */
function webpEnd(b: Buffer): number | undefined {
  return b.length >= 12 ? 8 + b.readUInt32LE(4) : undefined;
}
