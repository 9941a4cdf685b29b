/**
 * A guest scan as the person leaves it on the upload page: started by an agent on /mcp, consented to in a
 * browser through core's IntakeService (a solved ALTCHA challenge, as the page's widget would send), and
 * analysed. The browser's secret is what the page's `__Host-` cookie holds.
 */
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { BrowserContext } from 'playwright-core';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import type { Measure } from '../../services/shared/measures.ts';
import { completeScan, RED_ACNE_SCORES } from './fixtures.ts';
import { solveAltcha } from './intake.ts';
import { callTool } from './mcp.ts';
import type { Stack } from './stack.ts';

/** The upload page's consent cookie. */
const BROWSER_COOKIE = '__Host-skinmatch-browser';

export interface ConsentedScan {
  readonly runId: string;
  readonly accessToken: string;
  readonly browserSecret: string;
}

/** Consents to a scan as a browser would; returns that browser's secret. */
export async function consentTo(coreUrl: string, runId: string): Promise<string> {
  const intake = createClient(IntakeService, createConnectTransport({ baseUrl: coreUrl, httpVersion: '2' }));
  const { challengeJson } = await intake.createChallenge({ runId });
  const { browserSecret } = await intake.consent({
    runId,
    consentVersion: CONSENT_VERSION,
    challengeSolution: await solveAltcha(challengeJson),
  });
  return browserSecret;
}

/** A guest scan with a consenting browser; complete with `scores` unless they are null. */
export async function consentedScan(
  stack: Stack,
  scores: Partial<Record<Measure, number>> | null = RED_ACNE_SCORES,
): Promise<ConsentedScan> {
  const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'save tests' }))
    .structuredContent;
  const browserSecret = await consentTo(stack.coreUrl, started.run_id);
  if (scores) await completeScan(stack.orm, started.run_id, scores);
  return { runId: started.run_id, accessToken: started.access_token, browserSecret };
}

/** Gives a browser the consent cookie the upload page set. */
export async function holdConsentCookie(context: BrowserContext, baseUrl: string, secret: string) {
  await context.addCookies([
    {
      name: BROWSER_COOKIE,
      value: secret,
      domain: new URL(baseUrl).hostname,
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'Strict',
    },
  ]);
}
