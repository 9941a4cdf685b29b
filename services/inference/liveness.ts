/**
 * Inference's health from state that busy work cannot delay. An analysis keeps the ONNX sessions and
 * sharp's threads busy for seconds, and a fresh self-check asked of them under a deadline waited behind it:
 * a busy process answered NOT_SERVING, core logged it as down, and the kubelet could restart it mid-analysis.
 * So a Check never waits for the models:
 *
 * - SERVING while the models are loaded, their last self-check answered (one runs in the background at
 *   most every `SELF_CHECK_EVERY_MS`, never awaited by a Check), the process is not stopping, and it is not
 *   stuck;
 * - stuck (`liveness` NOT_SERVING as well) when work is under way — an analysis stage, a self-check — and
 *   none of it has moved on for `stallMs` (INFERENCE_STALL_MS, 2 minutes): busy is progress, stuck is none.
 *   A stream waiting for its client to read is not under way. Any work moving on counts, a self-check
 *   included: one analysis that hangs while the models still answer is core's to cancel (its deadline),
 *   not a reason to restart the pod and every analysis in it.
 */
import type { Readiness } from '../shared/shutdown.ts';
import type { FaceAnalysis } from './face-analysis.ts';

export const STALL_MS = 120_000;
export const SELF_CHECK_EVERY_MS = 10_000;

/** Counts the work under way and when any of it last moved on. */
export class WorkProgress {
  readonly #stallMs: number;
  #working = 0;
  #movedAt = performance.now();

  constructor(stallMs = STALL_MS) {
    this.#stallMs = stallMs;
  }

  /** True when work is under way and none of it has moved on for the stall bound. */
  get stalled(): boolean {
    return this.#working > 0 && performance.now() - this.#movedAt > this.#stallMs;
  }

  /** One step of work: under way until it settles, which counts as moving on. */
  async step<T>(work: () => Promise<T>): Promise<T> {
    if (this.#working++ === 0) this.#movedAt = performance.now();
    try {
      return await work();
    } finally {
      this.#working -= 1;
      this.#movedAt = performance.now();
    }
  }

  /** `events`, each one a step: under way while the next is computed, not while its reader holds it. */
  async *steps<T>(events: AsyncIterable<T>): AsyncGenerator<T> {
    const iterator = events[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await this.step(() => iterator.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      await iterator.return?.();
    }
  }
}

/** The answers of inference's grpc.health.v1: overall (readiness) and `liveness`. */
export class InferenceHealth {
  readonly #analysis: FaceAnalysis;
  readonly #progress: WorkProgress;
  readonly #readiness: Readiness | undefined;
  #modelsAnswer = false;
  #checkedAt = Number.NEGATIVE_INFINITY;
  #checking = false;

  constructor(analysis: FaceAnalysis, progress: WorkProgress, readiness?: Readiness) {
    this.#analysis = analysis;
    this.#progress = progress;
    this.#readiness = readiness;
  }

  /** The first self-check, awaited once before the server listens. */
  async start(): Promise<void> {
    await this.#selfCheck();
  }

  serving(): boolean {
    if (performance.now() - this.#checkedAt >= SELF_CHECK_EVERY_MS) void this.#selfCheck();
    return (
      !this.#readiness?.draining && this.#analysis.loaded && this.#modelsAnswer && !this.#progress.stalled
    );
  }

  alive(): boolean {
    return !this.#progress.stalled;
  }

  async #selfCheck(): Promise<void> {
    if (this.#checking) return;
    this.#checking = true;
    try {
      this.#modelsAnswer = await this.#progress.step(() => this.#analysis.selfCheck());
    } finally {
      this.#checking = false;
      this.#checkedAt = performance.now();
    }
  }
}
