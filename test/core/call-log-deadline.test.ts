/**
 * A call whose client gives up at its deadline is logged DeadlineExceeded, every time: the client's reset
 * (CANCEL) and this server's own timer for the same deadline race, and the reset, arriving first, was
 * logged Canceled for 5 to 9 calls of 20.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { pino } from 'pino';
import { Health, HealthCheckResponseSchema } from '../../gen/grpc/health/v1/health_pb.ts';
import { startServer } from '../../services/shared/server.ts';
import { loadProto } from '../support/grpc-js.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the call log and deadlines', () => {
  it('20 calls answered after their deadline are all DeadlineExceeded, none Canceled', async () => {
    const lines: Array<{ msg: string; code: string }> = [];
    const server = await startServer({
      port: 0,
      logger: pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
      routes: (router) =>
        router.service(Health, {
          // Answers after 400 ms, whatever the deadline: as a handler that ignores its signal.
          check: async () => {
            await sleep(400);
            return create(HealthCheckResponseSchema, { status: 1 });
          },
          async *watch() {},
        }),
    });
    const { grpc: pkg } = loadProto('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      const codes: number[] = [];
      for (let i = 0; i < 20; i++) {
        codes.push(
          await new Promise<number>((resolve) =>
            health.check({}, { deadline: Date.now() + 150 }, (err: grpc.ServiceError | null) =>
              resolve(err ? err.code : grpc.status.OK),
            ),
          ),
        );
      }
      assert.deepEqual(codes, Array(20).fill(grpc.status.DEADLINE_EXCEEDED));
      for (let waited = 0; lines.filter((l) => l.msg === 'rpc').length < 20 && waited < 5000; waited += 20)
        await sleep(20);
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
