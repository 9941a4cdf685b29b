/**
 * The scan worker's Analyzer backed by the inference service: one AnalyzeFace stream per photo, over
 * Connect on HTTP/2, under a deadline. A transport failure, a stream that ends without an outcome, or one
 * that is still open at its deadline (a stalled process: alive, not answering) throws, and the worker
 * retries the job.
 */
import { type Client, Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { InferenceService, Stage } from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { isMeasure, type Measure } from '../shared/measures.ts';
import type { AnalysisEvent, Analyzer } from './analyzer.ts';

const STAGE_NAMES: Record<number, string> = {
  [Stage.DECODING]: 'decoding',
  [Stage.DETECTING_FACE]: 'detecting_face',
  [Stage.CHECKING_QUALITY]: 'checking_quality',
  [Stage.MEASURING]: 'measuring',
  [Stage.SCORING]: 'scoring',
};

/** The deadline of one analysis unless configured (INFERENCE_TIMEOUT_MS). */
export const DEFAULT_ANALYSIS_TIMEOUT_MS = 30_000;

export class InferenceAnalyzer implements Analyzer {
  readonly #client: Client<typeof InferenceService>;
  readonly #timeoutMs: number;

  constructor(transport: Transport, timeoutMs: number = DEFAULT_ANALYSIS_TIMEOUT_MS) {
    this.#client = createClient(InferenceService, transport);
    this.#timeoutMs = timeoutMs;
  }

  async *analyze(image: Uint8Array, signal: AbortSignal): AsyncIterable<AnalysisEvent> {
    // The call's own signal, aborted however this stream ends: Connect's stream has no return(), so a
    // consumer that stops reading (its job failed on a database write) would otherwise leave the call open
    // and inference analysing for nobody, its connection held until inference's shutdown bound.
    // Canceled: the client resets the HTTP/2 stream with CANCEL, which inference takes as its caller gone.
    const call = new AbortController();
    const stop = () => call.abort(new ConnectError('the analysis is no longer read', Code.Canceled));
    signal.addEventListener('abort', stop, { once: true });
    try {
      if (signal.aborted) stop();
      yield* this.#events(image, call.signal);
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
    }
  }

  /**
   * The call's events; its outcome once the stream has ended (its trailers read, a moment after the
   * outcome), so that the abort that follows finds the call complete, not one to cancel.
   */
  async *#events(image: Uint8Array, signal: AbortSignal): AsyncGenerator<AnalysisEvent> {
    const call = this.#client.analyzeFace({ image }, { signal, timeoutMs: this.#timeoutMs });
    let outcome: AnalysisEvent | undefined;
    for await (const { event } of call) {
      if (outcome) continue;
      if (event.case === 'progress') {
        yield {
          kind: 'progress',
          stage: STAGE_NAMES[event.value.stage] ?? 'analyzing',
          percent: event.value.percent,
        };
      } else if (event.case === 'result') {
        const scores: Partial<Record<Measure, number>> = {};
        for (const { measure, score } of event.value.scores) if (isMeasure(measure)) scores[measure] = score;
        const models = Object.fromEntries(event.value.models.map((m) => [m.name, m.version]));
        outcome = { kind: 'result', scores, concerns: event.value.concerns.filter(isMeasure), models };
      } else if (event.case === 'failure') {
        outcome = { kind: 'failure', reason: event.value.reason };
      }
    }
    if (outcome) yield outcome;
  }
}
