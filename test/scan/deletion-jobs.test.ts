import assert from 'node:assert/strict';
import { plainSql } from '../../services/core/db/plain-sql.ts';
import { analysisBacklog } from '../../services/scan/admissions-governor.ts';
import { pageFetch, pageScan } from '../intake/scan-page-support.ts';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const queuedJob = (runId: string) => ({ key: runId, task_identifier: 'analyze_scan', attempts: 0 });

/**
 * Deleting a scan whose photo waits for analysis takes its job off graphile-worker's queue in the same
 * transaction, whichever way it is deleted: otherwise the job waits for a worker to run it as a no-op, and
 * meanwhile counts in the backlog that pauses new scans. The stack has no analyzer: jobs stay queued.
 */
describe('deleting a queued scan removes its analysis job', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('deletion-jobs');
  });
  after(() => stack?.close());

  /** The queued jobs of these scans, by run_id (the job key), as graphile-worker holds them. */
  const jobs = async (runIds: string[]) =>
    (
      await (
        await plainSql(stack.orm)
      ).query<{ key: string; payload: { run_id: string } }>(
        'select key, task_identifier, attempts from graphile_worker.jobs where key = any($1) order by key',
        [runIds],
      )
    ).rows;
  const backlog = async () => (await analysisBacklog(await plainSql(stack.orm))).queued;

  /** A scan started on `path` (with `authorization` on /mcp/account), its photo queued for analysis. */
  async function queuedScan(authorization?: string) {
    const started = authorization
      ? (
          await accountRpc(stack.baseUrl, authorization, 'tools/call', {
            name: 'start_skin_scan',
            arguments: { source: 'jobs' },
          })
        ).body.result
      : await callTool(stack.baseUrl, 'start_skin_scan', { source: 'jobs' });
    const { run_id, access_token } = started.structuredContent as { run_id: string; access_token: string };
    await uploadPhoto(stack.orm, run_id, PHOTO);
    return { run_id, access_token };
  }

  it('delete_skin_scan on /mcp: the job goes, the backlog is one less; another scan keeps its job', async () => {
    const kept = await queuedScan();
    const scan = await queuedScan();
    assert.deepEqual(await jobs([scan.run_id]), [queuedJob(scan.run_id)]);
    const before = await backlog();
    const deleted = await callTool(stack.baseUrl, 'delete_skin_scan', scan);
    assert.deepEqual(deleted.structuredContent, { run_id: scan.run_id, deleted: true });
    assert.deepEqual(await jobs([scan.run_id]), []);
    assert.equal(await backlog(), before - 1);
    assert.deepEqual(await jobs([kept.run_id]), [queuedJob(kept.run_id)]);
  });

  it('the upload page’s delete (POST /scan/:id/delete by the consenting browser): the job goes too', async () => {
    const scan = await pageScan(stack.baseUrl);
    await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    assert.deepEqual(await jobs([scan.run_id]), [queuedJob(scan.run_id)]);
    const before = await backlog();
    const removed = await pageFetch(stack.baseUrl, `/scan/${scan.run_id}/delete`, {
      method: 'POST',
      secret: scan.secret,
    });
    assert.equal(removed.status, 200);
    assert.deepEqual(await removed.json(), { deleted: true });
    assert.deepEqual(await jobs([scan.run_id]), []);
    assert.equal(await backlog(), before - 1);
  });

  it('delete_skin_scan by run_id on /mcp/account: the account scan’s job goes', async () => {
    const bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'deletes-one'))}`;
    const scan = await queuedScan(bearer);
    assert.equal((await jobs([scan.run_id])).length, 1);
    const before = await backlog();
    const deleted = await accountRpc(stack.baseUrl, bearer, 'tools/call', {
      name: 'delete_skin_scan',
      arguments: { run_id: scan.run_id },
    });
    assert.deepEqual(deleted.body.result.structuredContent, { run_id: scan.run_id, deleted: true });
    assert.deepEqual(await jobs([scan.run_id]), []);
    assert.equal(await backlog(), before - 1);
  });

  it('delete_my_service_data: the jobs of all the account’s scans go, with the scans', async () => {
    const bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'deletes-all'))}`;
    const scans = [await queuedScan(bearer), await queuedScan(bearer)];
    const ids = scans.map((scan) => scan.run_id);
    assert.equal((await jobs(ids)).length, 2);
    const before = await backlog();
    const deleted = await accountRpc(stack.baseUrl, bearer, 'tools/call', {
      name: 'delete_my_service_data',
      arguments: {},
    });
    assert.equal(deleted.body.result.structuredContent.deleted.scans, 2);
    assert.deepEqual(await jobs(ids), []);
    assert.equal(await backlog(), before - 2);
  });
});
