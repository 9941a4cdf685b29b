/**
 * `node test/bench/facade-ab.ts REV`: the façade at git revision REV against the working tree's, for
 * changes meant to make `get_skin_scan` through the façade cheaper. One core (the tree's) on an embedded
 * (or DATABASE_URL) PostgreSQL, and two façades in front of it: REV's (its facade/, services/ and gen/
 * extracted with git archive into a temporary directory that borrows this node_modules) and the tree's.
 * Each round measures, in turn, `GetScan` direct over Connect and `get_skin_scan` through each façade
 * (16 callers, BENCH_PHASE_MS each, default 1000; the order reversed every other round), BENCH_ROUNDS
 * rounds (default 30) after a warm-up. On a shared machine requests/s move by ±50 % between phases, so
 * the comparison is paired: per round each façade's rate against the direct rate measured beside it, and
 * the tree's rate against REV's; the medians over the rounds, and each façade's CPU per call (/proc).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { waitForReady } from '../../scripts/ready.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type LoadResult, load } from './load.ts';

const rev = process.argv[2] ?? '';
if (rev === '') {
  console.error('usage: node test/bench/facade-ab.ts REV');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 1000);
const CONCURRENCY = 16;

const root = fileURLToPath(new URL('../../', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'facade-ab-'));
const children: ChildProcess[] = [];
const db = await createTestDatabase();
try {
  execFileSync(
    'sh',
    ['-c', `git archive "$0" package.json facade services gen | tar -x -C "$1"`, rev, base],
    {
      cwd: root,
    },
  );
  symlinkSync(join(root, 'node_modules'), join(base, 'node_modules'));
  const corePort = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    CORE_PORT: String(corePort),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '100000000',
    RATE_LIMIT_CALLS_PER_MINUTE: '100000000',
  };
  const start = async (dir: string, script: string, ports: Record<string, number>) => {
    const ported = Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, String(port)]));
    const child = fork(join(dir, script), { cwd: dir, env: { ...env, ...ported }, stdio: 'inherit' });
    children.push(child);
    return child.pid!;
  };
  const core = await start(root, 'services/core/main.ts', { CORE_METRICS_PORT: await freePort() });
  if (!(await waitForReady(corePort))) throw new Error('core did not start');
  const facade = async (dir: string) => {
    const port = await freePort();
    const pid = await start(dir, 'facade/main.ts', {
      FACADE_PORT: port,
      FACADE_METRICS_PORT: await freePort(),
    });
    if (!(await waitForPort(port))) throw new Error(`the façade in ${dir} did not start`);
    return { url: `http://127.0.0.1:${port}/mcp`, pid };
  };
  const [old, tree] = [await facade(base), await facade(root)];

  const scans = createClient(
    ScanService,
    createConnectTransport({
      baseUrl: `http://127.0.0.1:${corePort}`,
      httpVersion: '2',
      useBinaryFormat: true,
    }),
  );
  const started = await scans.startScan({ source: 'bench' });
  const identity = { runId: started.runId, accessToken: started.accessToken };
  const payload = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'get_skin_scan',
      arguments: { run_id: identity.runId, access_token: identity.accessToken },
    },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (url: string) => () =>
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
  const paths: Record<string, readonly [() => Promise<unknown>, readonly number[]]> = {
    direct: [() => scans.getScan(identity), [core]],
    [rev]: [post(old.url), [old.pid, core]],
    tree: [post(tree.url), [tree.pid, core]],
  };
  for (const [call] of Object.values(paths)) await load(call, 3000, CONCURRENCY);
  const runs = Object.fromEntries(Object.keys(paths).map((name) => [name, [] as LoadResult[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const names = Object.keys(paths);
    for (const name of round % 2 === 0 ? names : names.reverse()) {
      const [call, servers] = paths[name]!;
      runs[name]!.push(await load(call, PHASE_MS, CONCURRENCY, servers));
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const rate = (name: string, against: string) =>
    median(runs[name]!.map((run, i) => run.perSecond / runs[against]![i]!.perSecond));
  const cpu = (name: string, process: number) => median(runs[name]!.map((run) => run.cpuUsEach![process]!));
  console.log(
    `\n${ROUNDS} rounds of ${PHASE_MS} ms per path, ${CONCURRENCY} callers, load average now ${loadavg()[0]!.toFixed(1)}; medians over the rounds:\n`,
  );
  for (const name of [rev, 'tree']) {
    console.log(
      `${name.padEnd(12)} get_skin_scan / direct GetScan ${rate(name, 'direct').toFixed(2)}×   façade ${cpu(name, 0).toFixed(0)} µs a call, core ${cpu(name, 1).toFixed(0)} µs`,
    );
  }
  console.log(
    `${'direct'.padEnd(12)} core ${median(runs.direct!.map((run) => run.cpuUs!)).toFixed(0)} µs a call`,
  );
  console.log(`\ntree / ${rev} requests/s: ${rate('tree', rev).toFixed(2)}×`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  rmSync(base, { recursive: true, force: true });
  await db.drop();
  await stopTestDatabaseServer();
}
