/**
 * The upload page's core side as tests run it: an ALTCHA challenge cheap enough to solve in a test (the
 * same code and format as production, with a small cost), the default photo bounds, and the solver the
 * widget runs in the browser.
 */
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Challenge } from 'altcha-lib/types';
import type { CoreOptions } from '../../services/core/core.ts';
import { AltchaChallenge } from '../../services/intake/altcha-challenge.ts';
import type { IntakeLimits } from '../../services/intake/intake-service.ts';

export const TEST_ALTCHA_KEY = Buffer.alloc(32, 9);

export const TEST_INTAKE_LIMITS: IntakeLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxPixels: 40_000_000,
  uploadsPerHour: 1000,
};

export function testIntake(limits: Partial<IntakeLimits> = {}): CoreOptions['intake'] {
  return {
    challenge: new AltchaChallenge({ hmacKey: TEST_ALTCHA_KEY, cost: 10, minCounter: 5, maxCounter: 20 }),
    limits: { ...TEST_INTAKE_LIMITS, ...limits },
  };
}

/** Solves a challenge as the widget does, and returns the payload the widget would submit. */
export async function solveAltcha(challengeJson: string): Promise<string> {
  const challenge = JSON.parse(challengeJson) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('the ALTCHA challenge could not be solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}
