/**
 * `npm run bench:facade`: what the MCP façade costs. Core, the façade and a bare Koa JSON-RPC handler run
 * as their own processes on an embedded (or DATABASE_URL) PostgreSQL; this process drives load at each
 * and prints requests/s, p50 and p99, and the ratios:
 *   get_skin_scan through the façade  vs  GetScan called directly over Connect (target ≥ 0.7×)
 *   tools/list through the façade     vs  a bare Koa JSON-RPC handler          (target ≥ 0.5×)
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { waitForPort } from '../../scripts/port.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type LoadResult, load, row } from './load.ts';

const DURATION_MS = Number(process.env.BENCH_MS ?? 6000);
const ROUNDS = 3;
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
  // Plain node:http with keep-alive: fetch() costs the load generator several times more CPU per request,
  // CPU that the servers under test then lack on a two-core machine.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (url: string, method: string, params?: object) => {
    const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    return () =>
      new Promise<void>((resolve, reject) => {
        const req = request(url, { method: 'POST', agent, headers: JSON_RPC_HEADERS }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (res.statusCode !== 200 || body.error || body.result?.isError)
              reject(new Error(JSON.stringify(body)));
            else resolve();
          });
        });
        req.on('error', reject);
        req.end(payload);
      });
  };
  const facade = `http://127.0.0.1:${FACADE_PORT}/mcp`;
  const getArgs = {
    name: 'get_skin_scan',
    arguments: { run_id: identity.runId, access_token: identity.accessToken },
  };

  // Warm every path first (JIT, connection pools), then measure.
  const bareUrl = `http://127.0.0.1:${barePort}/`;
  for (const warm of [
    post(facade, 'tools/list'),
    post(facade, 'tools/call', getArgs),
    () => scans.getScan(identity),
    post(bareUrl, 'tools/list'),
  ]) {
    await load(warm, 1000, CONCURRENCY);
  }
  // The machine is noisy: each path runs ROUNDS times, interleaved with the others, and the round with
  // the median rate stands for it, so a passing disturbance does not decide a ratio.
  const paths = {
    direct: () => scans.getScan(identity),
    viaFacade: post(facade, 'tools/call', getArgs),
    bareKoa: post(bareUrl, 'tools/list'),
    list: post(facade, 'tools/list'),
  };
  const runs: Record<keyof typeof paths, LoadResult[]> = { direct: [], viaFacade: [], bareKoa: [], list: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(paths)) {
      runs[name as keyof typeof paths].push(await load(call, DURATION_MS / ROUNDS, CONCURRENCY));
    }
  }
  const median = (results: LoadResult[]) =>
    [...results].sort((a, b) => a.perSecond - b.perSecond)[results.length >> 1]!;
  const direct = median(runs.direct);
  const viaFacade = median(runs.viaFacade);
  const bareKoa = median(runs.bareKoa);
  const list = median(runs.list);

  console.log(
    `\n${CONCURRENCY} concurrent callers, ${ROUNDS} interleaved rounds of ${DURATION_MS / ROUNDS / 1000} s per path (median round), this machine:\n`,
  );
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
