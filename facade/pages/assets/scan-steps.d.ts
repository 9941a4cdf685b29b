// The types of scan-steps.js, for the server's render (scan-html.ts imports the same file the browser runs).

/** A step of the page. */
export type Step = 'consent' | 'elsewhere' | 'photo' | 'progress' | 'done' | 'failed';

/** What the rule reads of a scan's state (PageState in scan-html.ts). */
export interface StepState {
  readonly status: string;
  readonly stage: string;
  readonly progress: number;
  readonly failure_message: string | null;
  readonly consented: boolean;
  readonly is_consenting_browser: boolean;
}

/** The words the status line is made of (PAGE_WORDS in scan-html.ts). */
export interface StatusWords {
  readonly stages: Readonly<Record<string, string>>;
  readonly awaitingPhoto: string;
  readonly queued: string;
  /** Queued again after the analysis service failed (stage `retrying`): the photo is kept. */
  readonly retrying: string;
  readonly analyzing: string;
  readonly complete: string;
  readonly failedFallback: string;
}

export function stepOf(state: StepState): Step;
/** A progress as a whole percent from 0 to 100 (0 for no number). */
export function percentOf(value: unknown): number;
export function statusWords(state: StepState, words: StatusWords): string;
