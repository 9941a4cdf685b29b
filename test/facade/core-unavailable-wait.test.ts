/**
 * Core's `unavailable` refusals reach agents with the wait to honour: a core still starting (its
 * migrations waiting for another process's lock, core.ts `refuseUntil`) refuses every call `unavailable`
 * with no wait of its own, and the tool error had no `retry_after_seconds` though the README promises one
 * meanwhile and every other `unavailable` carries it; a wait core names (a database outage,
 * services/core/db/outage.ts) is passed on as it is. Core here is an in-memory Connect router answering
 * StartScan and GetScan with those refusals.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRouterTransport } from '@connectrpc/connect';
import pino from 'pino';
import { createFacade } from '../../facade/app.ts';
import { FAULT_RETRY_AFTER_SECONDS } from '../../facade/mcp/tool-errors.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { serviceError } from '../../services/shared/errors.ts';
import { callTool } from '../support/mcp.ts';
import { testOAuthConfig } from '../support/oauth.ts';

describe("core's unavailable refusals carry a wait to agents", () => {
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const core = createRouterTransport(({ service }) =>
      service(ScanService, {
        startScan: () => {
          throw serviceError('unavailable', 'Core is starting; try again shortly.');
        },
        getScan: () => {
          throw serviceError('unavailable', 'The database is not answering; try again in 7 s.', {
            retry_after_seconds: '7',
          });
        },
      }),
    );
    server = createServer();
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const { port } = server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    const app = await createFacade({
      core,
      allowedHosts: [`127.0.0.1:${port}`],
      logger: pino({ level: 'silent' }),
      publicBaseUrl: baseUrl,
      oauth: testOAuthConfig(),
    });
    server.on('request', app.callback());
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  it('a refusal without a wait of its own: unavailable with the fault wait', async () => {
    const result = await callTool(baseUrl, 'start_skin_scan', { source: 'starting' });
    assert.equal(result.isError, true);
    assert.deepEqual(result.structuredContent, {
      error: {
        code: 'unavailable',
        message: 'Core is starting; try again shortly.',
        retry_after_seconds: FAULT_RETRY_AFTER_SECONDS,
      },
    });
  });

  it("a refusal naming its wait: core's wait", async () => {
    const result = await callTool(baseUrl, 'get_skin_scan', {
      run_id: '6f1d8a52-3c1e-4b7a-9a51-1f0a3c2b4d5e',
      access_token: 'a'.repeat(64),
    });
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent.error.code, 'unavailable');
    assert.equal(result.structuredContent.error.retry_after_seconds, 7);
  });
});
