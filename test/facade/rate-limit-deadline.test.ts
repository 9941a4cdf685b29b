/**
 * A rate-limit store that never answers (PostgreSQL stalled: SIGSTOP, a hung connection) holds no request:
 * each lookup gives up after its deadline and counts in this replica's memory, and for a while after, every
 * lookup counts in memory at once. Limits still hold (per replica), and a tool call whose core is down
 * still ends quickly as `unavailable` instead of hanging.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { createFacade } from '../../facade/app.ts';
import { GuestLimits, STORE_RETRY_MS, STORE_TIMEOUT_MS } from '../../facade/rate-limits.ts';
import { freePort } from '../../scripts/port.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import { createLogger } from '../../services/shared/logger.ts';
import { callTool, errorCode, rpc } from '../support/mcp.ts';
import { testOAuthConfig } from '../support/oauth.ts';

/** A store whose every query waits forever, as a stalled server's do; it counts the queries sent. */
function silentStore() {
  const store = { queries: 0, query: () => new Promise<never>(() => store.queries++) };
  return store;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

describe('a rate-limit store that never answers', function () {
  this.timeout(20_000);

  it('each lookup waits at most its deadline, then counts in memory: limits hold, nothing hangs', async () => {
    const store = silentStore();
    // A deadline well above what a loaded machine takes for the lookups that do not wait (the bound they are
    // held to below): at 300 ms they were held to 100 ms.
    const limits = new GuestLimits({ callsPerMinute: 3, scansPerHour: 10, storeTimeoutMs: 1000 }, store);
    const [first, firstMs] = await timed(() => limits.check('get_skin_scan', '203.0.113.20'));
    assert.equal(first, undefined);
    assert.ok(firstMs >= 950 && firstMs < 2500, `first lookup ${firstMs} ms`);
    // The store is now known not to answer: the next lookups do not wait for it.
    const codes = [];
    for (let i = 0; i < 3; i++) {
      const [refusal, ms] = await timed(() => limits.check('get_skin_scan', '203.0.113.20'));
      codes.push(refusal?.code);
      assert.ok(ms < 500, `lookup ${i + 2} took ${ms} ms`);
    }
    assert.deepEqual(codes, [undefined, undefined, 'rate_limited']);
    assert.equal(store.queries, 1, 'one query sent; the others counted in memory');
    limits.close();
  });

  it('the default deadline leaves a core call its whole deadline inside an MCP request’s', () => {
    assert.equal(STORE_TIMEOUT_MS, 2000);
    assert.ok(STORE_TIMEOUT_MS + 10_000 < 15_000); // CORE_TIMEOUT_MS, MCP_REQUEST_TIMEOUT_MS defaults
    assert.equal(STORE_RETRY_MS, 5000);
  });

  describe('behind a façade', () => {
    let server: Server;
    let baseUrl: string;

    before(async () => {
      const port = await freePort();
      const app = await createFacade({
        // Core is down as well (nothing listens): a tool call ends as `unavailable`.
        core: createInternalTransport({
          baseUrl: `http://127.0.0.1:${await freePort()}`,
          defaultTimeoutMs: 2000,
        }),
        allowedHosts: [`127.0.0.1:${port}`],
        logger: createLogger('facade', 'silent'),
        // Well above a ping's round trip on a loaded machine, which the case holds under it once the store is
        // known silent (at 500 ms it held it to 300 ms).
        limits: { callsPerMinute: 100, scansPerHour: 100, storeTimeoutMs: 1500 },
        limitStore: silentStore() as unknown as pg.Pool,
        publicBaseUrl: `http://127.0.0.1:${port}`,
        oauth: testOAuthConfig(),
        requestTimeoutMs: 5000,
      });
      server = app.listen(port, '127.0.0.1');
      await new Promise((ready) => server.once('listening', ready));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => server?.close());

    it('answers /mcp within the lookup deadline, and a tool call as unavailable, not after a minute', async () => {
      const [ping, pingMs] = await timed(() => rpc(baseUrl, 'ping'));
      assert.equal(ping.status, 200);
      assert.ok(pingMs < 3000, `ping ${pingMs} ms`);
      const [result, callMs] = await timed(() =>
        callTool(baseUrl, 'start_skin_scan', { source: 'rate-limit-deadline' }),
      );
      assert.equal(errorCode(result), 'unavailable');
      assert.ok(callMs < 4000, `tool call ${callMs} ms`);
      const [again, againMs] = await timed(() => rpc(baseUrl, 'ping'));
      assert.equal(again.status, 200);
      assert.ok(againMs < 1000, `ping while the store is known silent: ${againMs} ms`);
    });
  });
});
