/**
 * The scan worker's Analyzer backed by the inference service: one AnalyzeFace stream per photo, over
 * Connect on HTTP/2. A transport failure, or a stream that ends without an outcome, throws, and the
 * worker retries the job.
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

export class InferenceAnalyzer implements Analyzer {
  readonly #client: Client<typeof InferenceService>;

  constructor(transport: Transport) {
    this.#client = createClient(InferenceService, transport);
  }

  async *analyze(image: Uint8Array, signal: AbortSignal): AsyncIterable<AnalysisEvent> {
    for await (const message of this.#client.analyzeFace({ image }, { signal })) {
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
