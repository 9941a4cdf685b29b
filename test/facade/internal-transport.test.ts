/**
 * The façade's transport to core (services/shared/internal-transport.ts) against a real connect-node
 * server on HTTP/2: answers, the spec's error details, deadlines both ways, cancellation, a server that is
 * down or restarts, interceptors, and streaming calls handed to connect-node's transport.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type HandlerContext, type Interceptor } from '@connectrpc/connect';
import { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import {
  type GetScanRequest,
  GetScanResponseSchema,
  ScanService,
  type WatchScanRequest,
  WatchScanResponseSchema,
} from '../../gen/skinmatch/v1/scan_pb.ts';
import { ScanSchema } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { errorReason, serviceError } from '../../services/shared/errors.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { startTestServer } from '../support/rpc-server.ts';

const RUN_ID = '6f1c2d8e-1b2a-4c3d-9e8f-0a1b2c3d4e5f';
const TOKEN = 'a'.repeat(64);

/**
 * The slow answer, and the default deadline the transport gives up at: a quick call must come back well
 * within the deadline (at 300 ms a loaded machine's first call on a new connection need not), and the slow
 * one well after it.
 */
const SLOW_ANSWER_MS = 5000;
const DEFAULT_TIMEOUT_MS = 1000;

/** What the test server saw of the last call. */
const seen: { headers?: Headers; timeout?: number } = {};

async function serve(port = 0): Promise<RunningServer> {
  return startTestServer({
    port,
    routes: (router) =>
      router.service(ScanService, {
        async getScan(req: GetScanRequest, ctx: HandlerContext) {
          seen.headers = ctx.requestHeader;
          seen.timeout = ctx.timeoutMs();
          if (req.runId === 'slow') {
            await new Promise((resolve) => setTimeout(resolve, SLOW_ANSWER_MS));
          }
          if (req.accessToken !== TOKEN) throw serviceError('not_found', 'No such scan.');
          return create(GetScanResponseSchema, {
            scan: create(ScanSchema, { runId: req.runId, progress: 40 }),
          });
        },
        async *watchScan(req: WatchScanRequest) {
          for (const progress of [10, 20, 30]) {
            yield create(WatchScanResponseSchema, {
              scan: create(ScanSchema, { runId: req.runId, progress }),
            });
          }
        },
      }),
  });
}

describe('the façade’s transport to core', () => {
  let server: RunningServer;
  let baseUrl: string;
  before(async () => {
    server = await serve();
    baseUrl = `http://127.0.0.1:${server.port}`;
  });
  after(() => server.close(0));

  it('answers a unary call with the decoded message, many at once on one connection', async () => {
    const scans = createClient(ScanService, createInternalTransport({ baseUrl }));
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => scans.getScan({ runId: RUN_ID, accessToken: TOKEN })),
    );
    for (const answer of answers) {
      assert.equal(answer.scan?.runId, RUN_ID);
      assert.equal(answer.scan?.progress, 40);
    }
  });

  it('brings core’s error back with its code, message and ErrorInfo reason', async () => {
    const scans = createClient(ScanService, createInternalTransport({ baseUrl }));
    const err = await scans.getScan({ runId: RUN_ID, accessToken: 'b'.repeat(64) }).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConnectError);
    assert.equal(err.code, Code.NotFound);
    assert.equal(err.rawMessage, 'No such scan.');
    assert.equal(errorReason(err), 'not_found');
  });

  it('sends the deadline to the server and gives up locally with deadline_exceeded', async () => {
    const scans = createClient(
      ScanService,
      createInternalTransport({ baseUrl, defaultTimeoutMs: DEFAULT_TIMEOUT_MS }),
    );
    await scans.getScan({ runId: RUN_ID, accessToken: TOKEN });
    assert.ok(
      seen.timeout !== undefined && seen.timeout > 0 && seen.timeout <= DEFAULT_TIMEOUT_MS,
      String(seen.timeout),
    );
    const started = Date.now();
    await assert.rejects(scans.getScan({ runId: 'slow', accessToken: TOKEN }), (err: ConnectError) => {
      assert.equal(err.code, Code.DeadlineExceeded);
      return true;
    });
    assert.ok(Date.now() - started < SLOW_ANSWER_MS - 1000, 'the call did not wait for the slow answer');
    // A call's own timeout wins over the default.
    await assert.rejects(scans.getScan({ runId: 'slow', accessToken: TOKEN }, { timeoutMs: 50 }), {
      code: Code.DeadlineExceeded,
    });
  });

  it('an answer that is not the Connect protocol’s (a route the server does not serve): the code of its HTTP status', async () => {
    const matches = createClient(MatchService, createInternalTransport({ baseUrl }));
    await assert.rejects(matches.recommendProducts({ runId: RUN_ID, accessToken: TOKEN }), {
      code: Code.Unimplemented,
    });
  });

  it('is cancelled by the caller’s signal', async () => {
    const scans = createClient(ScanService, createInternalTransport({ baseUrl }));
    const controller = new AbortController();
    const call = scans.getScan({ runId: 'slow', accessToken: TOKEN }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(call, { code: Code.Canceled });
  });

  it('runs interceptors around each call, which can add headers', async () => {
    const names: string[] = [];
    const tag =
      (name: string): Interceptor =>
      (next) =>
      async (req) => {
        names.push(name);
        req.header.set(`x-${name}`, '1');
        return next(req);
      };
    const scans = createClient(
      ScanService,
      createInternalTransport({ baseUrl, interceptors: [tag('outer'), tag('inner')] }),
    );
    await scans.getScan({ runId: RUN_ID, accessToken: TOKEN });
    assert.deepEqual(names, ['outer', 'inner']);
    assert.equal(seen.headers?.get('x-outer'), '1');
    assert.equal(seen.headers?.get('x-inner'), '1');
  });

  it('hands streaming calls to connect-node’s transport', async () => {
    const scans = createClient(ScanService, createInternalTransport({ baseUrl }));
    const progress: number[] = [];
    for await (const event of scans.watchScan({ runId: RUN_ID, accessToken: TOKEN })) {
      progress.push(event.scan?.progress ?? -1);
    }
    assert.deepEqual(progress, [10, 20, 30]);
  });

  it('a server that is down: unavailable; once it is back, calls succeed again', async () => {
    const restarted = await serve();
    const port = restarted.port;
    const scans = createClient(
      ScanService,
      createInternalTransport({ baseUrl: `http://127.0.0.1:${port}`, defaultTimeoutMs: 2000 }),
    );
    await scans.getScan({ runId: RUN_ID, accessToken: TOKEN });
    await restarted.close(0);
    await assert.rejects(scans.getScan({ runId: RUN_ID, accessToken: TOKEN }), { code: Code.Unavailable });
    const back = await serve(port);
    try {
      const answer = await scans.getScan({ runId: RUN_ID, accessToken: TOKEN });
      assert.equal(answer.scan?.runId, RUN_ID);
    } finally {
      await back.close(0);
    }
  });
});
