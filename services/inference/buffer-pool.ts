/**
 * Float32 buffers of one length, lent for the length of one step and given back, so that the large
 * per-photo inputs (the detector's view, the landmark crops, the region patches) are not garbage for the
 * collector each photo: about 1 MB a photo of typed arrays, each full collection a few milliseconds.
 *
 * Lent, not shared: analyses on one instance interleave at every await (the service runs concurrent
 * streams), and onnxruntime-node reads an input tensor at a later turn of the event loop, not when
 * `run` is called, so a buffer is taken for the whole step and only reused once given back.
 */
export class BufferPool {
  readonly #length: number;
  readonly #free: Float32Array[] = [];

  constructor(length: number) {
    this.#length = length;
  }

  /** `step` with a buffer of the pool's length (contents left from an earlier use), given back after. */
  async lend<T>(step: (buffer: Float32Array) => Promise<T>): Promise<T> {
    const buffer = this.#free.pop() ?? new Float32Array(this.#length);
    try {
      return await step(buffer);
    } finally {
      // At most as many buffers are kept as analyses ever ran at once.
      this.#free.push(buffer);
    }
  }
}
