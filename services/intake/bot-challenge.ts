/**
 * The bot challenge in front of consent, as a small interface so that the self-hosted ALTCHA proof of work
 * (altcha-challenge.ts) can be swapped for a hosted challenge in production.
 *
 * A hosted challenge (Turnstile, hCaptcha, ALTCHA Sentinel, …) plugs in by implementing the two methods:
 * `create` returns what its widget needs (e.g. `{"sitekey": "…"}`) and `verify` asks the provider's
 * verification endpoint about the widget's token, returning the token's hash as the solution's id and the
 * provider's validity window as its expiry; core then refuses a second use of the same id exactly as for
 * ALTCHA. Core passes the implementation in `CoreOptions.challenge`.
 */
export interface BotChallenge {
  /** Names the challenge kind for the page, e.g. "altcha". */
  readonly provider: string;
  /** A challenge document for the page's widget, bound to one scan. */
  create(runId: string, now: Date): Promise<string>;
  /**
   * The solution's single-use id and the time its challenge expires, when `solution` solves a challenge
   * this service issued for `runId` and it has not expired at `now`; null for anything else. Whether the
   * solution was used before is the caller's business (used-challenges.ts).
   */
  verify(runId: string, solution: string, now: Date): Promise<SolvedChallenge | null>;
}

export interface SolvedChallenge {
  /** Identifies the solved challenge; at most 64 characters. */
  readonly id: string;
  readonly expiresAt: Date;
}
