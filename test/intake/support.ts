/**
 * Shared steps of the upload-page tests: a scan started as an agent would, a challenge solved as the
 * widget would, and consent given; plus exact checks of refusals.
 */
import assert from 'node:assert/strict';
import { type Client, Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { ERROR_DOMAIN } from '../../services/shared/errors.ts';
import { solveAltcha } from '../support/intake.ts';
import type { Stack } from '../support/stack.ts';

export interface Clients {
  readonly intake: Client<typeof IntakeService>;
  readonly scans: Client<typeof ScanService>;
}

export function clients(stack: Stack): Clients {
  const transport = createConnectTransport({ baseUrl: stack.coreUrl, httpVersion: '2' });
  return { intake: createClient(IntakeService, transport), scans: createClient(ScanService, transport) };
}

export async function solvedChallenge(c: Clients, runId: string): Promise<string> {
  const { provider, challengeJson } = await c.intake.createChallenge({ runId });
  assert.equal(provider, 'altcha');
  return solveAltcha(challengeJson);
}

/** A new scan, consented to by a browser: its id, the agent's token and the browser's secret. */
export async function consentedScan(c: Clients) {
  const started = await c.scans.startScan({ source: 'intake test' });
  const { runId, accessToken } = started;
  const consent = await c.intake.consent({
    runId,
    consentVersion: CONSENT_VERSION,
    challengeSolution: await solvedChallenge(c, runId),
  });
  return { runId, accessToken, secret: consent.browserSecret };
}

/** Asserts a refusal with its exact gRPC code, ErrorInfo reason and message. */
export async function refused(
  call: Promise<unknown>,
  code: Code,
  reason: string,
  message?: string | RegExp,
): Promise<ConnectError> {
  let error: ConnectError | undefined;
  await assert.rejects(call, (err) => {
    error = ConnectError.from(err);
    return true;
  });
  assert.equal(Code[error!.code], Code[code], error!.rawMessage);
  const [info] = error!.findDetails(ErrorInfoSchema);
  assert.equal(info?.domain, ERROR_DOMAIN);
  assert.equal(info?.reason, reason);
  if (typeof message === 'string') assert.equal(error!.rawMessage, message);
  else if (message) assert.match(error!.rawMessage, message);
  return error!;
}
