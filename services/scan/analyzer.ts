/**
 * What the scan worker needs from face analysis: a stream of progress events that ends in exactly one
 * outcome. The inference service provides it over Connect (inference-analyzer.ts); tests can stand in.
 */
import type { Measure } from '../shared/measures.ts';

export type AnalysisEvent =
  | { readonly kind: 'progress'; readonly stage: string; readonly percent: number }
  | {
      readonly kind: 'result';
      readonly scores: Readonly<Partial<Record<Measure, number>>>;
      readonly concerns: readonly Measure[];
      /** The models and calibration behind the scores, by role. */
      readonly models?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'failure'; readonly reason: string };

export interface Analyzer {
  /** Analyses one photo. Throws when the analysis could not run (unreachable, died mid-stream). */
  analyze(image: Uint8Array, signal: AbortSignal): AsyncIterable<AnalysisEvent>;
}
