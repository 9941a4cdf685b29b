/**
 * Core's connection pool exhausted: the scans table locked by another session, so that StartScan calls hold
 * every pooled connection waiting for it and the calls past the pool wait for a connection until the pool
 * gives up (5 s). Those calls are UNAVAILABLE with the `unavailable` reason and `retry_after_seconds`, a
 * refusal gRPC clients retry, and agents see the same wait in the tool error; each is one warning line
 * without a stack. They were INTERNAL "internal error", each logged as an error with its stack. Once the
 * lock goes, the waiting calls complete.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import pg from 'pg';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { callTool } from '../support/mcp.ts';
import { until } from '../support/processes.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** More calls than the pool has connections (orm.ts: 10). */
const CALLS = 14;

describe("core's connection pool exhausted", () => {
  let stack: Stack;
  let locker: pg.Client | undefined;
  before(async () => {
    stack = await startStack('database-outage');
  });
  after(async () => {
    await locker?.end();
    await stack?.close();
  });

  it('calls past the pool are UNAVAILABLE `unavailable` with a wait; the others complete once it frees', async () => {
    locker = new pg.Client({ connectionString: stack.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE scans IN ACCESS EXCLUSIVE MODE');
    const scans = createClient(
      ScanService,
      createConnectTransport({ baseUrl: stack.coreUrl, httpVersion: '2' }),
    );
    const refused: ConnectError[] = [];
    const calls = Array.from({ length: CALLS }, () =>
      scans.startScan({ source: 'pool' }).then(
        () => 'started' as const,
        (err) => {
          refused.push(ConnectError.from(err));
          return 'refused' as const;
        },
      ),
    );
    await until('a call to find no connection', () => refused.length > 0, 60_000);
    // An agent meanwhile: the tool error, with the wait.
    const tool = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'pool' });
    await locker.query('ROLLBACK');
    const outcomes = await Promise.all(calls);

    assert.ok(refused.length >= 1 && refused.length < CALLS, `${refused.length} refused`);
    for (const err of refused) {
      assert.equal(err.code, Code.Unavailable, err.message);
      assert.equal(errorReason(err), 'unavailable');
      assert.equal(err.findDetails(ErrorInfoSchema)[0]?.metadata.retry_after_seconds, '5');
    }
    assert.equal(outcomes.filter((o) => o === 'started').length, CALLS - refused.length);
    assert.equal(tool.isError, true);
    assert.equal(tool.structuredContent.error.code, 'unavailable');
    assert.equal(tool.structuredContent.error.retry_after_seconds, 5);

    const lines = readFileSync(stack.logFile, 'utf8').split('\n');
    assert.ok(lines.some((line) => line.includes('rpc refused: the database does not answer')));
    assert.ok(!lines.some((line) => line.includes('"msg":"rpc failed"')), 'no error line with a stack');
  });
});
