/**
 * WatchScan sees every change, even two that carry the same `updated_at` (the last progress write and
 * the final write in one millisecond): it follows the scan's version, not its timestamps.
 */
import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('WatchScan', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('watch-scan');
  });
  after(() => stack?.close());

  it('streams the final state written in the same millisecond as the last progress', async () => {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'watch' });
    const runId = started.structuredContent.run_id;
    const scans = createClient(ScanService, createGrpcTransport({ baseUrl: stack.coreUrl }));
    const abort = new AbortController();
    const stopAfter = setTimeout(() => abort.abort(), 15_000); // a missed final state would wait forever
    const write = (set: string) =>
      stack.orm.em
        .getConnection()
        .execute(`update scans set ${set}, updated_at = '2026-11-01T10:00:00.123Z' where id = ?`, [runId]);
    const seen: ScanStatus[] = [];
    try {
      for await (const { scan } of scans.watchScan(
        { runId, accessToken: started.structuredContent.access_token },
        { signal: abort.signal },
      )) {
        seen.push(scan!.status);
        if (seen.length === 1) await write(`status = 'analyzing', stage = 'scoring', progress = 90`);
        if (scan!.status === ScanStatus.ANALYZING) {
          await write(`status = 'complete', stage = '', progress = 100, scores = '{"acne": 80}'`);
        }
      }
    } finally {
      clearTimeout(stopAfter);
    }
    assert.deepEqual(seen, [ScanStatus.AWAITING_UPLOAD, ScanStatus.ANALYZING, ScanStatus.COMPLETE]);
  });

  it('every change raises the version by one, whoever writes it', async () => {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'version' });
    const runId = started.structuredContent.run_id;
    const sql = stack.orm.em.getConnection();
    const version = async () =>
      (await sql.execute('select version from scans where id = ?', [runId]))[0]!.version;
    assert.equal(await version(), 0);
    await sql.execute(`update scans set progress = 10 where id = ?`, [runId]);
    await sql.execute(`update scans set progress = 10, version = 0 where id = ?`, [runId]);
    assert.equal(await version(), 2);
  });
});
