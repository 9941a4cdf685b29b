/**
 * JPEG files as cameras and phones write them with more images after the first (CIPA DC-007, Multi-Picture
 * Format): an APP2 "MPF" segment after the first image's EXIF lists every image, its size and its offset from
 * the segment's TIFF header (0 for the first), and the other images follow the first's end-of-image marker
 * one after the other. A camera appends a preview this way; a phone's HDR photo its gain map (Ultra HDR).
 */
export interface MpfOptions {
  /** The TIFF header's byte order: cameras write either. */
  readonly bigEndian?: boolean;
  /** Image sizes to declare instead of the true ones (a writer's mistake, or a forgery). */
  readonly declaredSizes?: readonly number[];
}

/** `first` with an MPF segment listing `others`, and `others` appended after it. */
export function mpfJpeg(first: Buffer, others: readonly Buffer[], options: MpfOptions = {}): Buffer {
  const count = others.length + 1;
  const le = !options.bigEndian;
  const u16 = (v: number) => {
    const b = Buffer.alloc(2);
    le ? b.writeUInt16LE(v) : b.writeUInt16BE(v);
    return b;
  };
  const u32 = (v: number) => {
    const b = Buffer.alloc(4);
    le ? b.writeUInt32LE(v) : b.writeUInt32BE(v);
    return b;
  };
  // TIFF header (8) + IFD: entry count (2), three entries (36), next IFD (4); then the MP entries.
  const entriesAt = 8 + 2 + 3 * 12 + 4;
  const ifdEntry = (tag: number, type: number, n: number, value: Buffer) =>
    Buffer.concat([u16(tag), u16(type), u32(n), value]);
  const segmentLength = 2 + 4 + entriesAt + 16 * count;
  const insertAt = afterAppSegments(first);
  const tiffAt = insertAt + 4 + 4; // marker, length, "MPF\0"
  const firstLength = first.length + segmentLength + 2;
  const sizes = options.declaredSizes ?? [firstLength, ...others.map((o) => o.length)];
  let offset = firstLength - tiffAt;
  const entries = sizes.map((size, n) => {
    const attribute = n === 0 ? 0x20030000 : 0x00020000; // primary baseline image; a dependent one
    const entry = Buffer.concat([u32(attribute), u32(size), u32(n === 0 ? 0 : offset), u16(0), u16(0)]);
    if (n > 0) offset += others[n - 1]!.length;
    return entry;
  });
  const tiff = Buffer.concat([
    Buffer.from(le ? 'II' : 'MM', 'latin1'),
    u16(42),
    u32(8),
    u16(3),
    ifdEntry(0xb000, 7, 4, Buffer.from('0100', 'latin1')), // MPFVersion
    ifdEntry(0xb001, 4, 1, u32(count)), // NumberOfImages
    ifdEntry(0xb002, 7, 16 * count, u32(entriesAt)), // MPEntry
    u32(0),
    ...entries,
  ]);
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xffe2);
  header.writeUInt16BE(segmentLength, 2);
  const segment = Buffer.concat([header, Buffer.from('MPF\0', 'latin1'), tiff]);
  return Buffer.concat([first.subarray(0, insertAt), segment, first.subarray(insertAt), ...others]);
}

/** Where the JPEG's leading APPn segments (JFIF, EXIF) end. */
function afterAppSegments(jpeg: Buffer): number {
  let i = 2;
  while (jpeg[i] === 0xff && jpeg[i + 1]! >= 0xe0 && jpeg[i + 1]! <= 0xe1) i += 2 + jpeg.readUInt16BE(i + 2);
  return i;
}
