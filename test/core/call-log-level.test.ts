/**
 * The level of each RPC's log line: probes' calls (grpc.health.v1, and StatusService behind the façade's
 * /health, whose own request line is at debug) only at debug, so that a monitor polling /health does
 * not fill core's info log; every other call at info.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { pino } from 'pino';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { GetStatusResponseSchema, StatusService } from '../../gen/skinmatch/v1/status_pb.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { until } from '../support/processes.ts';
import { startTestServer } from '../support/rpc-server.ts';

describe('the call log’s levels', () => {
  let server: RunningServer;
  const { logger, lines } = capturingLogger<{ msg: string; level: number; procedure: string }>();

  before(async () => {
    server = await startTestServer({
      logger,
      routes: (router) => {
        router.service(StatusService, { getStatus: async () => create(GetStatusResponseSchema, {}) });
        router.service(CatalogService, {});
      },
    });
  });
  after(() => server?.close(1000));

  it('StatusService at debug, any other service at info', async () => {
    const transport = createConnectTransport({
      baseUrl: `http://127.0.0.1:${server.port}`,
      httpVersion: '1.1',
    });
    await createClient(StatusService, transport).getStatus({});
    await createClient(CatalogService, transport)
      .getProduct({})
      .catch(() => undefined);
    await until('both calls logged', () => lines.filter((l) => l.msg === 'rpc').length === 2);
    assert.deepEqual(
      lines
        .filter((l) => l.msg === 'rpc')
        .map((l) => [l.procedure.split('/')[0], pino.levels.labels[l.level]]),
      [
        ['skinmatch.v1.StatusService', 'debug'],
        ['skinmatch.v1.CatalogService', 'info'],
      ],
    );
  });
});
