/**
 * The scan worker's Analyzer backed by the inference service: one AnalyzeFace stream per photo, over
 * Connect on HTTP/2, under a deadline. A transport failure, a stream that ends without an outcome, or one
 * that is still open at its deadline (a stalled process: alive, not answering) throws, and the worker
 * retries the job.
 */
import { type Client, createClient, type Transport } from '@connectrpc/connect';
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
    const call = this.#client.analyzeFace({ image }, { signal, timeoutMs: this.#timeoutMs });
    for await (const message of call) {
      const { event } = message;
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
        yield { kind: 'result', scores, concerns: event.value.concerns.filter(isMeasure), models };
        return;
      } else if (event.case === 'failure') {
        yield { kind: 'failure', reason: event.value.reason };
        return;
      }
    }
  }
}
