/**
 * `npm run bench:match`: recommend_products in core at 100 000 products. A generated catalog (the demo
 * catalog's formulations under new ids, brands and types) is imported into PostgreSQL; core
 * (services/core/main.ts) and its floor (bare-recommend.ts) run as their own processes on it, and this
 * process calls them in turn, each call on a fresh completed scan, so both see the same machine. It prints:
 *   - p50/p95 of MatchService.RecommendProducts over Connect, and the server's CPU time per call,
 *   - the same for the floor: a bare connect-node handler doing the in-memory pass plus the same two
 *     statements written by hand with `pg` (the scan read, and the allowance's insert in its own
 *     transaction), no ORM, no token check,
 *   - the in-memory pass alone (filter + score + top 5) and the engine's cost per scored product,
 *   - the naive approach measured in the same run: load every product from the database per call,
 *     compile and score them all, sort.
 * Target: p50 under 10 ms at 100 000 products. BENCH_PROFILE=core writes a CPU profile of the core
 * process (`--cpu-prof`, catalog load included) to .data/profiles/.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { freePort } from '../../scripts/port.ts';
import { waitForReady } from '../../scripts/ready.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { upsertProducts } from '../../services/catalog/catalog-store.ts';
import type { DerivedProduct } from '../../services/catalog/derive.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import {
  compareMatches,
  compileProduct,
  createScorer,
  prepareScan,
  scoreColumns,
  toColumns,
} from '../../services/match/engine/index.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { generateCatalog } from './generated-catalog.ts';
import { cpuMs } from './load.ts';

const SIZE = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const WARM = 20;
const NAIVE_CALLS = 5;

const generated = generateCatalog(SIZE);

const db = await createTestDatabase();
const orm = await openDatabase(db.url);
const children: ChildProcess[] = [];
try {
  await migrate(orm);
  let t = performance.now();
  for (let start = 0; start < SIZE; start += 2000)
    await upsertProducts(orm.em.fork(), generated.slice(start, start + 2000));
  console.log(`imported ${SIZE} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  t = performance.now();
  const corePort = await freePort();
  const env = { ...process.env, DATABASE_URL: db.url, CORE_PORT: String(corePort), LOG_LEVEL: 'warn' };
  const profile = process.env.BENCH_PROFILE === 'core';
  const core = fork('services/core/main.ts', {
    env,
    stdio: 'inherit',
    execArgv: profile ? ['--cpu-prof', '--cpu-prof-dir=.data/profiles'] : [],
  });
  children.push(core);
  const floor = fork('test/bench/bare-recommend.ts', { env, stdio: 'inherit' });
  children.push(floor);
  const floorPort = await new Promise<number>((resolve) =>
    floor.once('message', (m: any) => resolve(m.port)),
  );
  // Ready, not only listening: core loads the catalog once it listens.
  if (!(await waitForReady(corePort, 120_000))) throw new Error('core did not start');
  console.log(`core and the floor loaded the catalog in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const connectTo = (port: number) =>
    createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '2', useBinaryFormat: true });
  const scans = createClient(ScanService, connectTo(corePort));
  const matches = createClient(MatchService, connectTo(corePort));
  const floorMatches = createClient(MatchService, connectTo(floorPort));

  const freshScans = async () => {
    const identities = [];
    for (let i = 0; i < WARM + CALLS; i++) {
      const s = await scans.startScan({ source: 'bench' });
      await completeScan(orm, s.runId, RED_ACNE_SCORES);
      identities.push({ runId: s.runId, accessToken: s.accessToken });
    }
    return identities;
  };
  const coreScans = await freshScans();
  const floorScans = await freshScans();
  // Core and the floor take turns, the first of each pair alternating, so that a busy moment on the
  // shared machine falls on both alike.
  const timings: number[] = [];
  const floorTimings: number[] = [];
  const timed = async (call: () => Promise<{ products: readonly unknown[] }>, into: number[], i: number) => {
    const start = performance.now();
    const res = await call();
    if (res.products.length !== 5) throw new Error('expected 5 products');
    if (i >= WARM) into.push(performance.now() - start);
  };
  let coreCpu = 0;
  let floorCpu = 0;
  for (let i = 0; i < WARM + CALLS; i++) {
    const calls = [
      () => timed(() => matches.recommendProducts(coreScans[i]!), timings, i),
      () => timed(() => floorMatches.recommendProducts(floorScans[i]!), floorTimings, i),
    ];
    if (i % 2 === 1) calls.reverse();
    for (const call of calls) {
      const before = [cpuMs([core.pid!]), cpuMs([floor.pid!])];
      await call();
      if (i >= WARM) {
        coreCpu += cpuMs([core.pid!]) - before[0]!;
        floorCpu += cpuMs([floor.pid!]) - before[1]!;
      }
    }
  }

  // The in-memory pass alone, and the engine's own cost per product.
  const derived = (
    await orm.em.getConnection().execute<{ derived: DerivedProduct }[]>('select derived from products')
  ).map((r: { derived: DerivedProduct }) => r.derived);
  const index = new CatalogIndex(derived);
  const concerns = concernsFromScores(RED_ACNE_SCORES);
  const pass: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    index.recommend(concerns, null, undefined, 5);
    pass.push(performance.now() - start);
  }
  const engines = index.entries.map((e) => e.engine);
  const engineRuns: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    const scorer = createScorer(concerns, null);
    for (const product of engines) scorer(product);
    engineRuns.push(performance.now() - start);
  }
  const columns = toColumns(engines);
  const columnRuns: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    scoreColumns(prepareScan(concerns, null), columns);
    columnRuns.push(performance.now() - start);
  }

  const naive: number[] = [];
  for (let i = 0; i < NAIVE_CALLS; i++) {
    const start = performance.now();
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ derived: DerivedProduct }[]>('select derived from products');
    const scorer = createScorer(concerns, null);
    const scored = rows.map((r: { derived: DerivedProduct }) => ({
      product_id: r.derived.product_id,
      match_score: scorer(compileProduct(r.derived)),
    }));
    scored.sort(compareMatches).slice(0, 5);
    naive.push(performance.now() - start);
  }

  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  console.log(`\n${SIZE} products, scan concerns: ${concerns.map((c) => c.name).join(', ')}\n`);
  const cpu = (total: number) => `server CPU ${((total * 1000) / CALLS).toFixed(0)} µs per call`;
  console.log(
    `RecommendProducts over Connect (${CALLS} calls): p50 ${ms(q(timings, 0.5))}  p95 ${ms(q(timings, 0.95))}  ${cpu(coreCpu)}`,
  );
  console.log(
    `floor: pass + 2 statements by hand:      p50 ${ms(q(floorTimings, 0.5))}  p95 ${ms(q(floorTimings, 0.95))}  ${cpu(floorCpu)}`,
  );
  console.log(`in-memory pass (filter, score, top 5):   p50 ${ms(q(pass, 0.5))}  p95 ${ms(q(pass, 0.95))}`);
  const perProduct = (runs: number[]) => `${((q(runs, 0.5) * 1e6) / SIZE).toFixed(0)} ns per product`;
  console.log(`engine, a scorer per product: p50 ${ms(q(engineRuns, 0.5))} = ${perProduct(engineRuns)}`);
  console.log(`engine, scoreColumns:         p50 ${ms(q(columnRuns, 0.5))} = ${perProduct(columnRuns)}`);
  console.log(`naive (load all from PostgreSQL per call, compile, score, sort): p50 ${ms(q(naive, 0.5))}`);
  console.log(
    `\nRecommendProducts p50 ${ms(q(timings, 0.5))} (target < 10 ms); / floor: p50 ${(q(timings, 0.5) / q(floorTimings, 0.5)).toFixed(2)}×, server CPU ${(coreCpu / floorCpu).toFixed(2)}×; naive / RecommendProducts: ${(q(naive, 0.5) / q(timings, 0.5)).toFixed(0)}× slower`,
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  await orm.close();
  await db.drop();
  await stopTestDatabaseServer();
}
