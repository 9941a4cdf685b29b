/**
 * ALTCHA, self-hosted: a proof of work (PBKDF2/SHA-256, altcha-lib's v2 format, solved by the `altcha`
 * widget in the person's browser) with no third party involved. The challenge is signed with the
 * ALTCHA_HMAC_KEY and carries the scan's id and an expiry, so a solution is good for one scan, for a short
 * while. altcha-lib's deterministic mode signs the expected key too, so verifying costs one key derivation
 * rather than a search.
 */
import { createHash } from 'node:crypto';
import { createChallenge, randomInt, verifySolution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Payload } from 'altcha-lib/types';
import type { BotChallenge, SolvedChallenge } from './bot-challenge.ts';

export interface AltchaOptions {
  /** Signs challenges (ALTCHA_HMAC_KEY). */
  readonly hmacKey: Buffer;
  /** PBKDF2 iterations per attempt. */
  readonly cost?: number;
  /** The solution's counter is drawn from [minCounter, maxCounter]: the work is about their mean × cost. */
  readonly minCounter?: number;
  readonly maxCounter?: number;
  /** How long a challenge may be solved and used. */
  readonly ttlMs?: number;
}

/** About a second of work for a phone's browser (half that on a laptop); a bot pays it per consent. */
const DEFAULTS = { cost: 1000, minCounter: 2000, maxCounter: 6000, ttlMs: 10 * 60 * 1000 };
const ALGORITHM = 'PBKDF2/SHA-256';

export class AltchaChallenge implements BotChallenge {
  readonly provider = 'altcha';
  readonly #signatureSecret: string;
  readonly #keySignatureSecret: string;
  readonly #options: typeof DEFAULTS;

  constructor(options: AltchaOptions) {
    // Two secrets from one key, each for its own purpose.
    this.#signatureSecret = derive(options.hmacKey, 'altcha challenge signature');
    this.#keySignatureSecret = derive(options.hmacKey, 'altcha key signature');
    this.#options = { ...DEFAULTS, ...definedOnly(options) };
  }

  async create(runId: string, now: Date): Promise<string> {
    const { cost, minCounter, maxCounter, ttlMs } = this.#options;
    const challenge = await createChallenge({
      algorithm: ALGORITHM,
      cost,
      counter: randomInt(maxCounter, minCounter),
      deriveKey,
      data: { runId },
      expiresAt: new Date(now.getTime() + ttlMs),
      hmacSignatureSecret: this.#signatureSecret,
      hmacKeySignatureSecret: this.#keySignatureSecret,
    });
    return JSON.stringify(challenge);
  }

  async verify(runId: string, solution: string, now: Date): Promise<SolvedChallenge | null> {
    const payload = parsePayload(solution);
    if (!payload?.challenge.signature) return null;
    const { parameters, signature } = payload.challenge;
    if (parameters.algorithm !== ALGORITHM || parameters.data?.runId !== runId) return null;
    const expiresAt = new Date((parameters.expiresAt ?? 0) * 1000);
    if (expiresAt <= now) return null;
    try {
      const result = await verifySolution({
        challenge: payload.challenge,
        solution: payload.solution,
        deriveKey,
        hmacSignatureSecret: this.#signatureSecret,
        hmacKeySignatureSecret: this.#keySignatureSecret,
      });
      if (!result.verified) return null;
    } catch {
      return null; // malformed parameters make altcha-lib throw: not a solution either
    }
    return { id: createHash('sha256').update(signature).digest('hex'), expiresAt };
  }
}

/** The widget's payload: base64 of `{challenge, solution}` JSON. */
function parsePayload(solution: string): Payload | null {
  try {
    const payload = JSON.parse(Buffer.from(solution, 'base64').toString('utf8'));
    const ok =
      typeof payload?.challenge?.parameters === 'object' &&
      typeof payload.challenge.signature === 'string' &&
      typeof payload.solution?.counter === 'number';
    return ok ? (payload as Payload) : null;
  } catch {
    return null;
  }
}

function derive(key: Buffer, purpose: string): string {
  return createHash('sha256').update(key).update(purpose).digest('hex');
}

function definedOnly(options: AltchaOptions): Partial<typeof DEFAULTS> {
  return Object.fromEntries(Object.entries(options).filter(([k, v]) => k !== 'hmacKey' && v !== undefined));
}
