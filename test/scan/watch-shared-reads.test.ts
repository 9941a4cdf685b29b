import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { Scan } from '../../services/core/db/scan-entity.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('watchers of one scan share its reads', () => {
  let stack: Stack;
  let scans: any;

  before(async () => {
    stack = await startStack('watch-shared-reads');
    const { skinmatch } = loadProto('skinmatch/v1/scan.proto');
    scans = new skinmatch.v1.ScanService(new URL(stack.coreUrl).host, grpc.credentials.createInsecure());
  });
  after(async () => {
    scans?.close();
    await stack?.close();
  });

  it('a change reaches 20 watchers by one read of the scan (it was one read per watcher)', async () => {
    const started: any = await unary(scans, 'startScan', { source: 'shared reads' });
    const identity = { runId: started.runId, accessToken: started.accessToken };
    const seen: string[][] = [];
    const calls = Array.from({ length: 20 }, (_, i) => {
      seen[i] = [];
      const call = scans.watchScan(identity);
      call.on('data', (msg: any) => seen[i]!.push(msg.scan.status));
      call.on('error', () => {});
      return call;
    });
    await until(() => seen.every((states) => states.length === 1));
    // Counts core's reads of a scan by entity (each watcher's look used to be one).
    const em = stack.orm.em;
    const fork = em.fork;
    let reads = 0;
    em.fork = ((...args: Parameters<typeof fork>) => {
      const forked = fork.apply(em, args);
      const findOne = forked.findOne;
      forked.findOne = ((entity: unknown, ...rest: unknown[]) => {
        if (entity === Scan) reads++;
        return (findOne as (...a: unknown[]) => unknown).apply(forked, [entity, ...rest]);
      }) as typeof findOne;
      return forked;
    }) as typeof fork;
    try {
      await stack.orm.em
        .getConnection()
        .execute(`update scans set status = 'queued', updated_at = now() where id = ?`, [identity.runId]);
      await until(() => seen.every((states) => states.length === 2));
      assert.equal(reads, 1);
      for (const states of seen)
        assert.deepEqual(states, ['SCAN_STATUS_AWAITING_UPLOAD', 'SCAN_STATUS_QUEUED']);
    } finally {
      em.fork = fork;
      for (const call of calls) call.cancel();
    }
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
