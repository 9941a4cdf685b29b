/**
 * IntakeService through a plain @grpc/grpc-js client, as an internal system would call it: challenge,
 * consent, upload of a real face photo, and WatchIntake streaming every state until the scan is complete.
 */
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { singleFace } from '../inference/support/photos.ts';
import { loadProto as load, unary } from '../support/grpc-js.ts';
import { solveAltcha } from '../support/intake.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('IntakeService over gRPC (@grpc/grpc-js client)', () => {
  let stack: Stack;
  let intake: any;
  let scans: any;

  before(async () => {
    stack = await startStack('intake-grpc');
    const target = new URL(stack.coreUrl).host;
    const credentials = grpc.credentials.createInsecure();
    intake = new (load('skinmatch/v1/intake.proto').skinmatch.v1.IntakeService)(target, credentials);
    scans = new (load('skinmatch/v1/scan.proto').skinmatch.v1.ScanService)(target, credentials);
  });
  after(async () => {
    intake?.close();
    scans?.close();
    await stack?.close();
  });

  it('consent, upload, and WatchIntake streaming each state to the end', async () => {
    const { runId }: any = await unary(scans, 'startScan', { source: 'grpc intake' });
    const challenge: any = await unary(intake, 'createChallenge', { runId });
    assert.equal(challenge.provider, 'altcha');
    const consent: any = await unary(intake, 'consent', {
      runId,
      consentVersion: CONSENT_VERSION,
      challengeSolution: await solveAltcha(challenge.challengeJson),
    });
    const browserSecret = consent.browserSecret;
    assert.match(browserSecret, /^[a-f0-9]{64}$/);

    const states: string[] = [];
    const ended = new Promise<grpc.ServiceError | undefined>((done) => {
      const call = intake.watchIntake({ runId, browserSecret });
      call.on('data', ({ state }: any) =>
        states.push(`${state.status}:${state.stage}:${state.progress}:${state.isConsentingBrowser}`),
      );
      call.on('error', done);
      call.on('end', () => done(undefined));
    });
    await waitFor(() => states.length === 1);
    const uploaded: any = await unary(intake, 'uploadPhoto', {
      runId,
      browserSecret,
      photo: await singleFace('b'),
    });
    assert.equal(uploaded.state.status, 'SCAN_STATUS_QUEUED');
    await waitFor(() => states.length === 2);
    // What the scan worker writes as the analysis goes on reaches the page.
    const sql = (q: string) => stack.orm.em.getConnection().execute(q, [runId]);
    await sql(`update scans set status = 'analyzing', stage = 'measuring', progress = 60 where id = ?`);
    await waitFor(() => states.length === 3);
    await sql(`update scans set status = 'complete', stage = '', progress = 100 where id = ?`);
    assert.equal(await ended, undefined, 'the stream ends by itself once the scan is complete');
    assert.deepEqual(states, [
      'SCAN_STATUS_AWAITING_UPLOAD::0:true',
      'SCAN_STATUS_QUEUED::0:true',
      'SCAN_STATUS_ANALYZING:measuring:60:true',
      'SCAN_STATUS_COMPLETE::100:true',
    ]);
  });

  it('a refusal carries its gRPC status and google.rpc.ErrorInfo reason', async () => {
    const { runId }: any = await unary(scans, 'startScan', { source: 'grpc intake' });
    await assert.rejects(
      unary(intake, 'uploadPhoto', { runId, browserSecret: '', photo: Buffer.from('x') }),
      (err: any) => {
        assert.equal(err.code, grpc.status.FAILED_PRECONDITION);
        const details = err.metadata.get('grpc-status-details-bin')[0] as Buffer;
        assert.ok(
          details.includes(Buffer.from('consent_required')) && details.includes(Buffer.from('skinmatch')),
        );
        return true;
      },
    );
  });

  it('WatchIntake on a scan deleted from the page ends with NOT_FOUND', async () => {
    const { runId }: any = await unary(scans, 'startScan', { source: 'grpc intake' });
    const challenge: any = await unary(intake, 'createChallenge', { runId });
    const { browserSecret }: any = await unary(intake, 'consent', {
      runId,
      consentVersion: CONSENT_VERSION,
      challengeSolution: await solveAltcha(challenge.challengeJson),
    });
    let seen = 0;
    const ended = new Promise<grpc.ServiceError | undefined>((done) => {
      const call = intake.watchIntake({ runId, browserSecret });
      call.on('data', () => seen++);
      call.on('error', done);
      call.on('end', () => done(undefined));
    });
    await waitFor(() => seen === 1);
    const { deleted }: any = await unary(intake, 'deleteIntake', { runId, browserSecret });
    assert.equal(deleted, true);
    assert.equal((await ended)?.code, grpc.status.NOT_FOUND);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
