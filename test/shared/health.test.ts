/**
 * grpc.health.v1 as a service object, watched by many and probed against a dependency that hangs: an open
 * Watch keeps a constant number of listeners on its call's signal (one was added a second and never removed:
 * 86 418 a day, +33.8 MB per Watch), every Watch shares one probe a second (1000 watches each probed once a
 * second), a probe that hangs counts as NOT_SERVING within its bound and is not asked again while it hangs,
 * a Watch ends on `stopping` with NOT_SERVING, then UNAVAILABLE, and a named check (readiness) answers from
 * its own probe.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import {
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus as Status,
} from '../../gen/grpc/health/v1/health_pb.ts';
import { HealthService } from '../../services/shared/health.ts';

const overall = create(HealthCheckRequestSchema, { service: '' });
const context = (signal: AbortSignal) => ({ signal }) as HandlerContext;

/** Reads a Watch in the background: the statuses seen, and how the stream ended. */
function follow(service: HealthService, signal: AbortSignal) {
  const seen: Status[] = [];
  const ended = (async () => {
    for await (const { status } of service.watch(overall, context(signal))) seen.push(status);
    return 'ended';
  })().catch((err) => ConnectError.from(err).code);
  return { seen, ended };
}

/** Waits until `done` holds, looking every 20 ms; the case's own timeout bounds it. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(20);
}

describe('grpc.health.v1 Watch and Check', function () {
  this.timeout(20_000);

  it('an open Watch holds a constant number of listeners on its call’s signal, and none once it ends', async () => {
    const service = new HealthService(['x.Service'], async () => true);
    const call = new AbortController();
    const watch = follow(service, call.signal);
    try {
      await sleep(3500);
      assert.deepEqual(watch.seen, [Status.SERVING]);
      // The old sleep() added one a second and never removed it: 4 after 3.5 s.
      const listeners = getEventListeners(call.signal, 'abort').length;
      assert.ok(listeners <= 1, `${listeners} listeners`);
    } finally {
      call.abort();
    }
    assert.equal(await watch.ended, 'ended');
    assert.equal(getEventListeners(call.signal, 'abort').length, 0);
  });

  it('a thousand open Watch streams share one probe a second, and each is told of a change', async () => {
    let probes = 0;
    let up = true;
    const service = new HealthService([], async () => {
      probes += 1;
      return up;
    });
    const calls = new AbortController();
    const watches = Array.from({ length: 1000 }, () => follow(service, calls.signal));
    try {
      await sleep(2500);
      // Three polls (at 0, 1 and 2 s); the old code probed per Watch: about 3000.
      assert.ok(probes >= 2 && probes <= 4, `${probes} probes`);
      up = false;
      // Each watch is told at the next poll: waited for, as a fixed 1.5 s assumed the poll and 1000 answers
      // came within it, which a loaded machine need not.
      await until(() => watches.every((watch) => watch.seen.length === 2));
    } finally {
      calls.abort();
    }
    for (const watch of watches) {
      assert.equal(await watch.ended, 'ended');
      assert.deepEqual(watch.seen, [Status.SERVING, Status.NOT_SERVING]);
    }
    const after = probes;
    await sleep(1500);
    assert.equal(probes, after, 'no probe once nobody watches');
  });

  it('a probe that hangs answers NOT_SERVING within its bound, and is not asked again while it hangs', async () => {
    let probes = 0;
    let release: (up: boolean) => void = () => {};
    const service = new HealthService([], () => {
      probes += 1;
      // The first probe hangs (until released), the next answer at once.
      if (probes > 1) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        release = resolve;
      });
    });
    const started = performance.now();
    const answers = await Promise.race([
      Promise.all(Array.from({ length: 5 }, () => service.check(overall))),
      sleep(3000, 'no answer within 3 s'),
    ]);
    assert.notEqual(answers, 'no answer within 3 s');
    assert.deepEqual(
      (answers as { status: Status }[]).map((a) => a.status),
      Array(5).fill(Status.NOT_SERVING),
    );
    assert.ok(performance.now() - started < 2000);
    assert.equal((await service.check(overall)).status, Status.NOT_SERVING);
    assert.equal(probes, 1, 'the calls shared the probe that hangs');
    release(true);
    await sleep(10);
    assert.equal((await service.check(overall)).status, Status.SERVING);
    assert.equal(probes, 2);
  });

  it('a Watch ends when the process stops taking work: NOT_SERVING, then UNAVAILABLE', async () => {
    const stopping = new AbortController();
    const service = new HealthService([], async () => true, { stopping: stopping.signal });
    const call = new AbortController();
    const watch = follow(service, call.signal);
    try {
      await until(() => watch.seen.length > 0); // SERVING first (a fixed 200 ms assumed it came by then)
      stopping.abort();
      assert.equal(await Promise.race([watch.ended, sleep(3000, 'still open')]), Code.Unavailable);
      assert.deepEqual(watch.seen, [Status.SERVING, Status.NOT_SERVING]);
    } finally {
      call.abort();
    }
  });

  it('a named check (readiness) answers from its own probe, apart from the overall status; List has both', async () => {
    const service = new HealthService(['x.Service'], async () => false, {
      checks: { readiness: async () => true },
    });
    const ask = (name: string) => service.check(create(HealthCheckRequestSchema, { service: name }));
    assert.equal((await ask('')).status, Status.NOT_SERVING);
    assert.equal((await ask('x.Service')).status, Status.NOT_SERVING);
    assert.equal((await ask('readiness')).status, Status.SERVING);
    await assert.rejects(ask('liveness'), (err) => ConnectError.from(err).code === Code.NotFound);
    const { statuses } = await service.list();
    assert.deepEqual(
      Object.fromEntries(Object.entries(statuses).map(([name, answer]) => [name, answer.status])),
      { '': Status.NOT_SERVING, 'x.Service': Status.NOT_SERVING, readiness: Status.SERVING },
    );
  });
});
