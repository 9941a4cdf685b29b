/**
 * `npm run bench:facade`: what the MCP façade costs. Core, the façade and a bare Koa JSON-RPC handler run
 * as their own processes on an embedded (or DATABASE_URL) PostgreSQL; this process drives load at each
 * and prints requests/s, p50 and p99, and the ratios:
 *   get_skin_scan through the façade  vs  GetScan called directly over Connect (target ≥ 0.7×)
 *   tools/list through the façade     vs  a bare Koa JSON-RPC handler          (target ≥ 0.5×)
 * and the floors of GetScan itself, measured in the same run:
 *   GetScan on core  vs  a bare connect-node handler doing the same SELECT with `pg` (bare-get-scan.ts):
 *                        target ≥ 0.6× its requests/s with p99 ≤ 2× its p99
 *   and a bare `pg` round trip per call from this process (the database's own floor).
 * BENCH_PROFILE=core (or facade) writes a CPU profile of that process to .data/profiles/ (`--cpu-prof`);
 * BENCH_PATHS=viaFacade (path names, comma-separated) measures only those paths, for a profile of one.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { Agent, request } from 'node:http';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import pg from 'pg';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { waitForReady } from '../../scripts/ready.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type LoadResult, load, row } from './load.ts';

const DURATION_MS = Number(process.env.BENCH_MS ?? 6000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const CORE_PORT = await freePort();
const FACADE_PORT = await freePort();

const db = await createTestDatabase();
const env = {
  ...process.env,
  DATABASE_URL: db.url,
  CORE_PORT: String(CORE_PORT),
  FACADE_PORT: String(FACADE_PORT),
  LOG_LEVEL: 'warn',
  RATE_LIMIT_REQUESTS_PER_MINUTE: '100000000',
  RATE_LIMIT_CALLS_PER_MINUTE: '100000000',
};
const children: ChildProcess[] = [];
const pools: pg.Pool[] = [];
const start = (script: string, name = '') => {
  const profile = name !== '' && process.env.BENCH_PROFILE === name;
  const execArgv = profile ? ['--cpu-prof', '--cpu-prof-dir=.data/profiles'] : [];
  const child = fork(script, { env, stdio: 'inherit', execArgv });
  children.push(child);
  return child;
};

try {
  const core = start('services/core/main.ts', 'core');
  // Ready, not only listening: core migrates and loads the catalog once it listens.
  if (!(await waitForReady(CORE_PORT))) throw new Error('core did not start');
  const facadeProcess = start('facade/main.ts', 'facade');
  if (!(await waitForPort(FACADE_PORT))) throw new Error('the façade did not start');
  const bare = start('test/bench/bare-koa.ts');
  const barePort = await new Promise<number>((resolve) => bare.once('message', (m: any) => resolve(m.port)));
  const floor = start('test/bench/bare-get-scan.ts');
  const floorPort = await new Promise<number>((resolve) =>
    floor.once('message', (m: any) => resolve(m.port)),
  );

  const connectTo = (port: number) =>
    createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '2', useBinaryFormat: true });
  const scans = createClient(ScanService, connectTo(CORE_PORT));
  const floorScans = createClient(ScanService, connectTo(floorPort));
  const pool = new pg.Pool({ connectionString: db.url, max: 10 });
  pools.push(pool);
  const started = await scans.startScan({ source: 'bench' });
  const identity = { runId: started.runId, accessToken: started.accessToken };
  const roundTrip = () =>
    pool.query({ name: 'scan_by_id', text: 'select * from scans where id = $1', values: [identity.runId] });
  // Plain node:http with keep-alive: fetch() costs the load generator several times more CPU per request,
  // CPU that the servers under test then lack on a two-core machine.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (url: string, method: string, params?: object) => {
    const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const send = (retry: boolean) =>
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
        // A kept-alive socket the server closed as idle just as it was reused: send once more.
        req.on('error', (err: NodeJS.ErrnoException) =>
          retry && req.reusedSocket && err.code === 'ECONNRESET' ? resolve(send(false)) : reject(err),
        );
        req.end(payload);
      });
    return () => send(true);
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
    () => floorScans.getScan(identity),
    roundTrip,
    post(bareUrl, 'tools/list'),
  ]) {
    await load(warm, 1000, CONCURRENCY);
  }
  // The machine is noisy: each path runs ROUNDS times, interleaved with the others, and the round with
  // the median rate stands for it, so a passing disturbance does not decide a ratio.
  // Each path with the processes that serve it, whose CPU time per request is reported.
  const paths = {
    pgRoundTrip: [roundTrip, []],
    floor: [() => floorScans.getScan(identity), [floor.pid!]],
    direct: [() => scans.getScan(identity), [core.pid!]],
    viaFacade: [post(facade, 'tools/call', getArgs), [facadeProcess.pid!, core.pid!]],
    bareKoa: [post(bareUrl, 'tools/list'), [bare.pid!]],
    list: [post(facade, 'tools/list'), [facadeProcess.pid!]],
  } as const;
  const none: LoadResult = { requests: 0, perSecond: 0, p50: 0, p99: 0, callerCpuUs: 0 };
  const runs = Object.fromEntries(Object.keys(paths).map((name) => [name, [] as LoadResult[]])) as Record<
    keyof typeof paths,
    LoadResult[]
  >;
  // BENCH_PATHS=viaFacade (names, comma-separated) measures only those paths: a profile of one path.
  const only = process.env.BENCH_PATHS?.split(',');
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, [call, servers]] of Object.entries(paths)) {
      if (only && !only.includes(name)) continue;
      runs[name as keyof typeof paths].push(await load(call, DURATION_MS / ROUNDS, CONCURRENCY, servers));
    }
  }
  const median = (results: LoadResult[]) =>
    [...results].sort((a, b) => a.perSecond - b.perSecond)[results.length >> 1] ?? none;
  const pgTrip = median(runs.pgRoundTrip);
  const bareGetScan = median(runs.floor);
  const direct = median(runs.direct);
  const viaFacade = median(runs.viaFacade);
  const bareKoa = median(runs.bareKoa);
  const list = median(runs.list);

  console.log(
    `\n${CONCURRENCY} concurrent callers, ${ROUNDS} interleaved rounds of ${DURATION_MS / ROUNDS / 1000} s per path (median round), this machine:\n`,
  );
  console.log(row('bare pg round trip (same SELECT)', pgTrip));
  console.log(row('bare connect-node + pg GetScan', bareGetScan));
  console.log(row('GetScan direct over Connect (h2)', direct));
  console.log(row('get_skin_scan through the façade', viaFacade));
  console.log(row('bare Koa JSON-RPC (fixed result)', bareKoa));
  console.log(row('tools/list through the façade', list));
  console.log(
    `\nGetScan / bare connect-node + pg:      ${(direct.perSecond / bareGetScan.perSecond).toFixed(2)}× req/s (target ≥ 0.6), p99 ${(direct.p99 / bareGetScan.p99).toFixed(2)}× (target ≤ 2)`,
  );
  console.log(
    `façade get_skin_scan / direct GetScan: ${(viaFacade.perSecond / direct.perSecond).toFixed(2)}× (target ≥ 0.7)`,
  );
  console.log(
    `façade tools/list / bare Koa:         ${(list.perSecond / bareKoa.perSecond).toFixed(2)}× (target ≥ 0.5)`,
  );
} finally {
  for (const pool of pools) await pool.end();
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await db.drop();
  await stopTestDatabaseServer();
}
