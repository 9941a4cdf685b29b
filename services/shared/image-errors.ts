/**
 * Whose fault a failure of the image library (sharp, libvips and its loaders) is. One reading for the
 * upload checks and for inference: the file's when the library complains about the file itself (its
 * format, header or data), too large when it passes the pixel bound, and the service's otherwise — memory,
 * threads, libvips itself, a bug — which must never tell a person their photo is bad. An empty file is the
 * file's: sharp says so as "Input Buffer is empty" for a Buffer and "Input Bit Array is empty" for the
 * Uint8Array a protobuf `bytes` field is (AnalyzeFace with no image answered INTERNAL).
 */
export type ImageErrorBlame = 'file' | 'too_many_pixels' | 'service';

const FILE_ERRORS =
  /unsupported image format|input (?:buffer|bit array) is empty|corrupt header|premature end|VipsJpeg|vipspng|libpng|webp|heif|gifload|tiff|load_buffer|not a known|bad seek|invalid|truncated/i;
/** Failures of the machine, even when a loader's name is in the message ("VipsJpeg: Insufficient memory"). */
const SERVICE_FAULTS =
  /out of memory|insufficient memory|cannot allocate|bad_alloc|vips_malloc|ENOMEM|thread/i;

export function blameImageError(err: unknown): ImageErrorBlame {
  const message = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(message)) return 'too_many_pixels';
  if (SERVICE_FAULTS.test(message) || !FILE_ERRORS.test(message)) return 'service';
  return 'file';
}
