/**
 * IntakeService.OpenPage called directly (a plain @grpc/grpc-js client, as an internal system would) by a
 * party holding only the link: once a browser has consented, reading progress needs that browser's secret
 * (intake.proto), so any other caller learns that the scan is in another browser's hands and nothing of its
 * progress or outcome — in core, not only in the façade's rendering of the page.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { consentTo } from '../support/consent.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('OpenPage for a browser that did not consent', () => {
  let stack: Stack;
  let intake: any;

  before(async () => {
    stack = await startStack('open-page-other-browser');
    const target = new URL(stack.coreUrl).host;
    intake = new (loadProto('skinmatch/v1/intake.proto').skinmatch.v1.IntakeService)(
      target,
      grpc.credentials.createInsecure(),
    );
  });
  after(async () => {
    intake?.close();
    await stack?.close();
  });

  /** A consented scan the analysis failed, mid-way through its stages before that. */
  async function failedScan() {
    const { run_id: runId } = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'other browser' }))
      .structuredContent;
    const secret = await consentTo(stack.coreUrl, runId);
    await stack.orm.em.getConnection().execute(
      `update scans set status = 'failed', stage = 'measuring', progress = 40,
           failure_reason = 'several_faces' where id = ?`,
      [runId],
    );
    return { runId, secret };
  }

  const lifecycle = ({ status, stage, progress, failureReason, consented, isConsentingBrowser }: any) => ({
    status,
    stage,
    progress,
    failureReason,
    consented,
    isConsentingBrowser,
  });

  it('no secret, or another browser’s: consented by another browser, nothing of the outcome', async () => {
    const scan = await failedScan();
    const hidden = {
      status: 'SCAN_STATUS_AWAITING_UPLOAD',
      stage: '',
      progress: 0,
      failureReason: '',
      consented: true,
      isConsentingBrowser: false,
    };
    for (const browserSecret of ['', randomBytes(32).toString('hex')]) {
      const { state }: any = await unary(intake, 'openPage', { runId: scan.runId, browserSecret });
      assert.deepEqual(lifecycle(state), hidden, browserSecret ? 'another browser' : 'no secret');
    }
  });

  it('the consenting browser still reads where its scan is', async () => {
    const scan = await failedScan();
    const { state }: any = await unary(intake, 'openPage', { runId: scan.runId, browserSecret: scan.secret });
    assert.deepEqual(lifecycle(state), {
      status: 'SCAN_STATUS_FAILED',
      stage: 'measuring',
      progress: 40,
      failureReason: 'several_faces',
      consented: true,
      isConsentingBrowser: true,
    });
  });
});
