// The photo's orientation, for the browsers that do not apply it themselves (imported by scan-upload.js).
// A camera stores its pixels as the sensor saw them and says in EXIF how to turn them upright. Browsers do
// not all apply it, nor for every format: Chromium 156 turns a JPEG or a PNG upright when it decodes it, but
// draws a WebP as stored — sideways, and the analysis then finds the face turned away. So for JPEG, PNG and
// WebP the page finds out once per format whether this browser applies the orientation (by decoding a 2×1
// image of that format tagged "turn 90° clockwise": upright it is 1×2), and where it does not, reads the
// orientation from the file (JPEG's APP1, PNG's eXIf chunk, WebP's EXIF chunk) and applies it when drawing.
// A browser that starts applying it is not turned twice. AVIF and HEIF carry their orientation as transform
// properties (irot, imir) that decoding applies; their EXIF orientation is only informative (ISO/IEC 23008-12)
// and is not read. Other formats the browser opens (GIF, BMP) have none.

/** 2×1 images tagged with EXIF orientation 6, made with sharp, the EXIF (one IFD0 entry) written by hand. */
const PROBES = {
  jpeg: '/9j/4QAiRXhpZgAASUkqAAgAAAABABIBAwABAAAABgAAAAAAAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////2wBDAf//////////////////////////////////////////////////////////////////////////////////////wAARCAABAAIDASIAAhEBAxEB/8QAFAABAAAAAAAAAAAAAAAAAAAAAP/EABQQAQAAAAAAAAAAAAAAAAAAAAD/xAAUAQEAAAAAAAAAAAAAAAAAAAAA/8QAFBEBAAAAAAAAAAAAAAAAAAAAAP/aAAwDAQACEQMRAD8AAA//2Q==',
  png: 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABAQMAAADO7O3JAAAAGmVYSWZJSSoACAAAAAEAEgEDAAEAAAAGAAAAAAAAALdIESkAAAADUExURYCAgJB0PTEAAAAJcEhZcwAAA+gAAAPoAbV7UmsAAAAKSURBVAiZY2AAAAACAAH0cWSmAAAAAElFTkSuQmCC',
  webp: 'UklGRlIAAABXRUJQVlA4WAoAAAAIAAAAAQAAAAAAVlA4TBEAAAAvAQAAAAdQwAIWsP+BiOh/AABFWElGGgAAAElJKgAIAAAAAQASAQMAAQAAAAYAAAAAAAAA',
};

/**
 * The EXIF orientation (1–8) the page must apply itself when drawing `file`: 1 when the file has none, is
 * not JPEG, PNG or WebP, cannot be read, or this browser applies it when decoding.
 */
export async function orientationToApply(file) {
  try {
    const format = formatOf(await read(file, 0, 12));
    if (!format || (await appliesOrientation(format))) return 1;
    const exif = await EXIF_OF[format](file);
    return exif ? orientationIn(exif) : 1;
  } catch {
    return 1; // cut short or malformed: drawn as the browser decodes it
  }
}

/**
 * The canvas transform that draws an image of `width`×`height` (as stored) upright: for orientations 5–8
 * the canvas is `height` wide and `width` high.
 */
export function uprightTransform(orientation, width, height) {
  switch (orientation) {
    case 2: // mirrored
      return [-1, 0, 0, 1, width, 0];
    case 3: // upside down
      return [-1, 0, 0, -1, width, height];
    case 4: // mirrored upside down
      return [1, 0, 0, -1, 0, height];
    case 5: // transposed
      return [0, 1, 1, 0, 0, 0];
    case 6: // to be turned 90° clockwise
      return [0, 1, -1, 0, height, 0];
    case 7: // transversed
      return [0, -1, -1, 0, height, width];
    case 8: // to be turned 90° anticlockwise
      return [0, -1, 1, 0, 0, width];
    default:
      return [1, 0, 0, 1, 0, 0];
  }
}

const applies = new Map();

/** Whether this browser turns an image of `format` upright by its EXIF orientation (found out once). */
function appliesOrientation(format) {
  if (!applies.has(format)) applies.set(format, decodesUpright(PROBES[format]));
  return applies.get(format);
}

async function decodesUpright(base64) {
  try {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes]), { imageOrientation: 'from-image' });
    const upright = bitmap.height > bitmap.width;
    bitmap.close();
    return upright;
  } catch {
    return true; // cannot tell: left to the browser
  }
}

/** `length` bytes of `file` from `start` (fewer at its end). */
async function read(file, start, length) {
  return new DataView(await file.slice(start, start + length).arrayBuffer());
}

const text = (view, at, length) =>
  String.fromCharCode(...new Uint8Array(view.buffer, view.byteOffset + at, length));

function formatOf(head) {
  if (head.byteLength < 12) return undefined;
  if (head.getUint16(0) === 0xffd8) return 'jpeg';
  if (head.getUint32(0) === 0x89504e47) return 'png';
  if (text(head, 0, 4) === 'RIFF' && text(head, 8, 4) === 'WEBP') return 'webp';
  return undefined;
}

/** The EXIF block (a TIFF structure) of a file of each format, or undefined. */
const EXIF_OF = {
  // Segments up to the image data; the EXIF one is APP1 starting "Exif\0\0".
  async jpeg(file) {
    for (let at = 2; at + 4 <= file.size; ) {
      const head = await read(file, at, 4);
      const marker = head.getUint16(0);
      if (marker >>> 8 !== 0xff || marker === 0xffda || marker === 0xffd9) return undefined;
      const length = head.getUint16(2);
      if (marker === 0xffe1) {
        const segment = await read(file, at + 4, length - 2);
        if (text(segment, 0, 6) === 'Exif\0\0') return new DataView(segment.buffer, 6);
      }
      at += 2 + length;
    }
    return undefined;
  },
  // Chunks up to the image data (eXIf comes before IDAT).
  async png(file) {
    for (let at = 8; at + 8 <= file.size; ) {
      const head = await read(file, at, 8);
      const length = head.getUint32(0);
      const type = text(head, 4, 4);
      if (type === 'eXIf') return read(file, at + 8, length);
      if (type === 'IDAT' || type === 'IEND') return undefined;
      at += 12 + length;
    }
    return undefined;
  },
  // RIFF chunks, the EXIF one usually after the image; some writers start it with "Exif\0\0".
  async webp(file) {
    for (let at = 12; at + 8 <= file.size; ) {
      const head = await read(file, at, 8);
      const size = head.getUint32(4, true);
      if (text(head, 0, 4) === 'EXIF') {
        const chunk = await read(file, at + 8, size);
        return text(chunk, 0, 6) === 'Exif\0\0' ? new DataView(chunk.buffer, 6) : chunk;
      }
      at += 8 + size + (size & 1);
    }
    return undefined;
  },
};

/** The Orientation tag (0x0112) of IFD0 in a TIFF structure, 1 when absent or out of range. */
function orientationIn(tiff) {
  const little = tiff.getUint16(0) === 0x4949;
  if (tiff.getUint16(2, little) !== 42) return 1;
  const ifd = tiff.getUint32(4, little);
  const entries = tiff.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (tiff.getUint16(entry, little) !== 0x0112) continue;
    const value = tiff.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}
