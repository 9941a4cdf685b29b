/**
 * `npm run bench:facade`: what the MCP façade costs. Core, the façade and a bare Koa JSON-RPC handler run
 * as their own processes on an embedded (or DATABASE_URL) PostgreSQL; this process drives load at each
 * and prints requests/s, p50 and p99, and the ratios:
 *   get_skin_scan through the façade  vs  GetScan called directly over Connect (target ≥ 0.7×)
 *   tools/list through the façade     vs  a bare Koa JSON-RPC handler          (target ≥ 0.5×)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { waitForPort } from '../../scripts/port.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { load, row } from './load.ts';

const DURATION_MS = Number(process.env.BENCH_MS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const CORE_PORT = 18081;
const FACADE_PORT = 18080;

const db = await createTestDatabase();
const env = {
  ...process.env,
  DATABASE_URL: db.url,
  CORE_PORT: String(CORE_PORT),
  FACADE_PORT: String(FACADE_PORT),
  LOG_LEVEL: 'warn',
  RATE_LIMIT_CALLS_PER_MINUTE: '100000000',
};
const children: ChildProcess[] = [];
// BENCH_PROFILE=1 writes a CPU profile of the façade to .data/profiles/ for `node --cpu-prof` readers.
const start = (script: string, profile = false) => {
  const execArgv = profile ? ['--cpu-prof', '--cpu-prof-dir=.data/profiles'] : [];
  const child = fork(script, { env, stdio: 'inherit', execArgv });
  children.push(child);
  return child;
};

try {
  start('services/core/main.ts');
  if (!(await waitForPort(CORE_PORT))) throw new Error('core did not start');
  start('facade/main.ts', process.env.BENCH_PROFILE === '1');
  if (!(await waitForPort(FACADE_PORT))) throw new Error('the façade did not start');
  const bare = start('test/bench/bare-koa.ts');
  const barePort = await new Promise<number>((resolve) => bare.once('message', (m: any) => resolve(m.port)));

  const scans = createClient(
    ScanService,
    createConnectTransport({
      baseUrl: `http://127.0.0.1:${CORE_PORT}`,
      httpVersion: '2',
      useBinaryFormat: true,
    }),
  );
  const started = await scans.startScan({ source: 'bench' });
  const identity = { runId: started.runId, accessToken: started.accessToken };
  const post = (url: string, method: string, params?: object) => async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as any;
    if (res.status !== 200 || body.error || body.result?.isError) throw new Error(JSON.stringify(body));
  };
  const facade = `http://127.0.0.1:${FACADE_PORT}/mcp`;
  const getArgs = {
    name: 'get_skin_scan',
    arguments: { run_id: identity.runId, access_token: identity.accessToken },
  };

  // Warm every path first (JIT, connection pools), then measure.
  for (const warm of [
    post(facade, 'tools/list'),
    post(facade, 'tools/call', getArgs),
    () => scans.getScan(identity),
  ]) {
    await load(warm, 1000, CONCURRENCY);
  }
  const direct = await load(() => scans.getScan(identity), DURATION_MS, CONCURRENCY);
  const viaFacade = await load(post(facade, 'tools/call', getArgs), DURATION_MS, CONCURRENCY);
  const bareKoa = await load(post(`http://127.0.0.1:${barePort}/`, 'tools/list'), DURATION_MS, CONCURRENCY);
  const list = await load(post(facade, 'tools/list'), DURATION_MS, CONCURRENCY);

  console.log(`\n${CONCURRENCY} concurrent callers, ${DURATION_MS / 1000} s each, this machine:\n`);
  console.log(row('GetScan direct over Connect (h2)', direct));
  console.log(row('get_skin_scan through the façade', viaFacade));
  console.log(row('bare Koa JSON-RPC (fixed result)', bareKoa));
  console.log(row('tools/list through the façade', list));
  console.log(
    `\nfaçade get_skin_scan / direct GetScan: ${(viaFacade.perSecond / direct.perSecond).toFixed(2)}× (target ≥ 0.7)`,
  );
  console.log(
    `façade tools/list / bare Koa:         ${(list.perSecond / bareKoa.perSecond).toFixed(2)}× (target ≥ 0.5)`,
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await db.drop();
  await stopTestDatabaseServer();
}
