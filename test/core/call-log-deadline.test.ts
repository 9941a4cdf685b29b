/**
 * A call whose client gives up at its deadline is logged DeadlineExceeded, every time: the client's reset
 * (CANCEL) and this server's own timer for the same deadline race, and the reset, arriving first, was
 * logged Canceled for 5 to 9 calls of 20.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { HealthCheckResponseSchema } from '../../gen/grpc/health/v1/health_pb.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { loadProto } from '../support/grpc-js.ts';
import { until } from '../support/processes.ts';
import { startHealthServer } from '../support/rpc-server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The calls' deadline. The race is between the client's reset and the server's timer, whatever the deadline;
 * the request must reach the server before it, which at 150 ms a loaded machine (CI, load 7-10) may not do.
 */
const DEADLINE_MS = 500;

describe('the call log and deadlines', function () {
  this.timeout(90_000);
  it('20 calls answered after their deadline are all DeadlineExceeded, none Canceled', async () => {
    const { logger, lines } = capturingLogger<{ msg: string; code: string }>();
    const server = await startHealthServer(
      {
        // Answers after its caller's deadline, whatever it is: as a handler that ignores its signal.
        check: async () => {
          await sleep(DEADLINE_MS + 300);
          return create(HealthCheckResponseSchema, { status: 1 });
        },
        async *watch() {},
      },
      { logger },
    );
    const { grpc: pkg } = loadProto('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      // Connected first: a call whose deadline passes while its channel connects never reaches the server.
      await new Promise<void>((ready, fail) =>
        health.waitForReady(Date.now() + 20_000, (err?: Error) => (err ? fail(err) : ready())),
      );
      const codes: number[] = [];
      for (let i = 0; i < 20; i++) {
        codes.push(
          await new Promise<number>((resolve) =>
            health.check({}, { deadline: Date.now() + DEADLINE_MS }, (err: grpc.ServiceError | null) =>
              resolve(err ? err.code : grpc.status.OK),
            ),
          ),
        );
      }
      assert.deepEqual(codes, Array(20).fill(grpc.status.DEADLINE_EXCEEDED));
      await until('the 20 calls logged', () => lines.filter((l) => l.msg === 'rpc').length >= 20, 10_000);
      assert.deepEqual(
        lines.filter((l) => l.msg === 'rpc').map((l) => l.code),
        Array(20).fill('DeadlineExceeded'),
      );
    } finally {
      health.close();
      await server.close(1000);
    }
  });
});
