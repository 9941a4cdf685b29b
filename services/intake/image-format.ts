/**
 * What a file is, by its bytes alone: the magic numbers of the formats the upload page accepts, and whether
 * the file ends where its own structure says the image ends. A file that carries anything after its image
 * (a JPEG with HTML or a zip archive appended: a polyglot) is refused rather than trimmed, so that nothing
 * but an image is ever taken in. What a JPEG's own MPF segment declares after it is part of its structure:
 * more JPEG images (a camera's preview, an HDR photo's gain map), each walked like the first. HEIC is not
 * among the formats: the sharp build here decodes HEIF only for AVIF (its libheif has no HEVC decoder), and
 * browsers hand the page JPEG from their photo pickers anyway.
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
  if (format === 'png') return pngEnd(bytes);
  if (format === 'webp') return webpEnd(bytes);
  const end = jpegEnd(bytes, 0);
  return end === undefined || end === bytes.length ? end : mpfImagesEnd(bytes, end);
}

/**
 * Metadata segments that libvips keeps in memory while it reads the file: a JPEG's APPn and COM segments (it
 * keeps each EXIF, XMP, ICC and IPTC one), a PNG's text chunks. Photos hold a few, at most a few hundred (an
 * ICC profile in 255 chunks, extended XMP in 64 kB pieces), but a 10 MB file can hold 2.6 million empty ones:
 * read, they took core 690 MB (APP1, APP2 or APP13 alike; 400 000 zTXt chunks 133 MB).
 */
export function metadataSegments(bytes: Buffer, format: ImageFormat): number {
  let count = 0;
  if (format === 'jpeg') {
    jpegEnd(bytes, 0, (marker) => {
      if ((marker >= 0xe0 && marker <= 0xef) || marker === 0xfe) count++;
    });
  } else if (format === 'png') {
    pngEnd(bytes, (type) => {
      if (type === 'tEXt' || type === 'zTXt' || type === 'iTXt') count++;
    });
  }
  return count;
}

/**
 * The scans of a JPEG (its SOS segments). A progressive decoder passes over every block of the frame for each
 * scan, however few bytes the scan takes (an end-of-band run covers 32 767 blocks in a few bits): a valid
 * 36-megapixel progression of 896 scans in 1 MB took 7.8 s to check. Encoders write 1 (baseline) to about
 * 10 (progressive); cjpeg's scan scripts take at most 100.
 */
export function jpegScans(b: Buffer): number {
  let scans = 0;
  jpegEnd(b, 0, (marker) => {
    if (marker === 0xda) scans++;
  });
  return scans;
}

/**
 * The frames of an animated WebP (its ANMF chunks). Reading one costs libvips time that grows with the
 * square of their number: 1000 frames 31 ms, 30 000 (1.5 MB) 2.2 s, 100 000 (5 MB) 33 s, the header read
 * alone half of it, in a thread that every photo check shares.
 */
export function webpFrames(b: Buffer): number {
  let frames = 0;
  for (let i = 12; i + 8 <= b.length; ) {
    if (b.toString('latin1', i, i + 4) === 'ANMF') frames++;
    const size = b.readUInt32LE(i + 4);
    i += 8 + size + (size & 1);
  }
  return frames;
}

/** Just past the JPEG's end-of-image marker: marker segments are skipped by their lengths, and entropy-coded
 * data after each start-of-scan runs to the next marker (0xFF not followed by 0x00 or a restart marker).
 * `onSegment` is told the marker of each segment with a length. */
function jpegEnd(b: Buffer, start: number, onSegment?: (marker: number) => void): number | undefined {
  if (b[start] !== 0xff || b[start + 1] !== 0xd8) return undefined;
  let i = start + 2;
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
      onSegment?.(marker);
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

/** Just past the IEND chunk; `onChunk` is told the type of each chunk. */
function pngEnd(b: Buffer, onChunk?: (type: string) => void): number | undefined {
  let i = PNG_SIGNATURE.length;
  while (i + 8 <= b.length) {
    const length = b.readUInt32BE(i);
    const type = b.toString('latin1', i + 4, i + 8);
    onChunk?.(type);
    i += 12 + length;
    if (type === 'IEND') return i;
  }
  return undefined;
}

/** The RIFF container's declared size. */
function webpEnd(b: Buffer): number | undefined {
  return b.length >= 12 ? 8 + b.readUInt32LE(4) : undefined;
}

/**
 * The end of the images the first JPEG's MPF segment (CIPA DC-007 Multi-Picture Format) declares after it:
 * cameras append a preview, phones an HDR photo's gain map (Ultra HDR, Apple's) or a depth map, each a JPEG
 * of its own whose size and offset (from the segment's TIFF header) MPF lists. They must follow the first
 * image and one another with nothing between, each a whole JPEG of its declared size: then the file ends
 * where the last one does (past the file's end when one is cut short). Anything else, or no MPF, leaves the
 * first image's end, and what follows it is more than an image.
 */
function mpfImagesEnd(b: Buffer, firstEnd: number): number {
  const images = mpfEntries(b)?.sort((x, y) => x.start - y.start);
  if (!images || images.length === 0) return firstEnd;
  let end = firstEnd;
  for (const { start, size } of images) {
    if (start !== end) return firstEnd;
    if (start + size > b.length) return start + size;
    if (jpegEnd(b.subarray(0, start + size), start) !== start + size) return firstEnd;
    end = start + size;
  }
  return end;
}

interface MpfImage {
  readonly start: number;
  readonly size: number;
}

/** The images after the first that the first JPEG's APP2 "MPF" segment lists, or undefined without one. */
function mpfEntries(b: Buffer): MpfImage[] | undefined {
  const segment = mpfSegment(b);
  if (!segment) return undefined;
  const { tiff, end } = segment;
  const little = b.toString('latin1', tiff, tiff + 2) === 'II';
  if (!little && b.toString('latin1', tiff, tiff + 2) !== 'MM') return undefined;
  // Reads within the segment only; -1 outside it.
  const within = (at: number, n: number) => at >= tiff && at + n <= end;
  const u16 = (at: number) => (within(at, 2) ? (little ? b.readUInt16LE(at) : b.readUInt16BE(at)) : -1);
  const u32 = (at: number) => (within(at, 4) ? (little ? b.readUInt32LE(at) : b.readUInt32BE(at)) : -1);
  const ifd = tiff + u32(tiff + 4);
  const count = u16(ifd);
  for (let n = 0; n < count; n++) {
    const entry = ifd + 2 + n * 12;
    if (u16(entry) !== MP_ENTRY_TAG) continue;
    const length = u32(entry + 4);
    const data = tiff + u32(entry + 8);
    if (length < 0 || length % 16 !== 0 || data < tiff || data + length > end) return undefined;
    const images: MpfImage[] = [];
    // The first entry is the first image itself (offset 0); the others are after it.
    for (let at = data + 16; at < data + length; at += 16) {
      const size = u32(at + 4);
      const offset = u32(at + 8);
      if (size > 0 && offset > 0) images.push({ start: tiff + offset, size });
    }
    return images;
  }
  return undefined;
}

const MP_ENTRY_TAG = 0xb002;

/** Where the first JPEG's MPF segment's TIFF header starts, and where the segment ends. */
function mpfSegment(b: Buffer): { tiff: number; end: number } | undefined {
  let i = 2;
  while (i + 4 <= b.length && b[i] === 0xff) {
    const marker = b[i + 1]!;
    if (marker === 0xda || marker === 0xd9) return undefined; // the image data: no MPF before it
    const end = Math.min(i + 2 + b.readUInt16BE(i + 2), b.length);
    if (marker === 0xe2 && b.toString('latin1', i + 4, i + 8) === 'MPF\0') return { tiff: i + 8, end };
    i = end;
  }
  return undefined;
}
