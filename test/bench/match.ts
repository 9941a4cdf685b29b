/**
 * `npm run bench:match`: recommend_products in core at 100 000 products. A generated catalog (the demo
 * catalog's formulations under new ids, brands and types) is imported into PostgreSQL, core serves it,
 * and this prints, from one run:
 *   - p50/p95 of MatchService.RecommendProducts over Connect (each call on a fresh completed scan),
 *   - the in-memory pass alone (filter + score + top 5) and the engine's cost per scored product,
 *   - its floor: the in-memory pass plus the same two statements written by hand with `pg` (the scan
 *     read, and the allowance's insert in its own transaction), no Connect, no ORM,
 *   - the naive approach measured in the same run: load every product from the database per call,
 *     compile and score them all, sort.
 * Target: p50 under 10 ms at 100 000 products. BENCH_PROFILE=1 writes a CPU profile of this process
 * (core runs in it) to .data/profiles/ while the RecommendProducts calls run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import pg from 'pg';
import { pino } from 'pino';
import { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { upsertProducts } from '../../services/catalog/catalog-store.ts';
import type { DerivedProduct } from '../../services/catalog/derive.ts';
import { startCore } from '../../services/core/core.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import {
  compareMatches,
  compileProduct,
  createScorer,
  ENGINE_VERSION,
  prepareScan,
  scoreColumns,
  toColumns,
} from '../../services/match/engine/index.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { testIntake } from '../support/intake.ts';
import { generateCatalog } from './generated-catalog.ts';

const SIZE = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const NAIVE_CALLS = 5;

const generated = generateCatalog(SIZE);

const db = await createTestDatabase();
const orm = await openDatabase(db.url);
const logger = pino({ level: 'warn' });
try {
  await migrate(orm);
  let t = performance.now();
  for (let start = 0; start < SIZE; start += 2000)
    await upsertProducts(orm.em.fork(), generated.slice(start, start + 2000));
  console.log(`imported ${SIZE} products in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const core = await startCore({
    orm,
    databaseUrl: db.url,
    pepper: Buffer.alloc(32, 1),
    publicBaseUrl: 'http://localhost',
    port: 0,
    host: '127.0.0.1',
    logger,
    intake: testIntake(),
  });
  console.log(`core loaded the catalog in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const transport = createConnectTransport({
    baseUrl: `http://127.0.0.1:${core.port}`,
    httpVersion: '2',
    useBinaryFormat: true,
  });
  const scans = createClient(ScanService, transport);
  const matches = createClient(MatchService, transport);

  const identities = [];
  for (let i = 0; i < CALLS + 20; i++) {
    const s = await scans.startScan({ source: 'bench' });
    await completeScan(orm, s.runId, RED_ACNE_SCORES);
    identities.push({ runId: s.runId, accessToken: s.accessToken });
  }
  const profiler = process.env.BENCH_PROFILE === '1' ? await startProfiler() : undefined;
  const timings: number[] = [];
  for (const [i, identity] of identities.entries()) {
    const start = performance.now();
    const res = await matches.recommendProducts(identity);
    if (res.products.length !== 5) throw new Error('expected 5 products');
    if (i >= 20) timings.push(performance.now() - start); // the first 20 warm up
  }
  await profiler?.();

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
  // The floor: the same two statements by hand around the same in-memory pass, each call on a fresh scan.
  const pool = new pg.Pool({ connectionString: db.url, max: 10 });
  const floorScans = [];
  for (let i = 0; i < CALLS + 20; i++) {
    const s = await scans.startScan({ source: 'bench' });
    await completeScan(orm, s.runId, RED_ACNE_SCORES);
    floorScans.push(s.runId);
  }
  const floor: number[] = [];
  for (const [i, runId] of floorScans.entries()) {
    const start = performance.now();
    const { rows } = await pool.query({
      name: 's',
      text: 'select * from scans where id = $1',
      values: [runId],
    });
    const { best } = index.recommend(concernsFromScores(rows[0].scores), null, undefined, 5);
    const client = await pool.connect();
    await client.query('begin');
    await client.query({
      name: 'c',
      text: `insert into scan_matches (run_id, consumed_at, product_ids, engine_version)
        values ($1, now(), $2, $3) on conflict (run_id) do nothing returning run_id`,
      values: [runId, JSON.stringify(best.map((b) => b.entry.product.product_id)), ENGINE_VERSION],
    });
    await client.query('commit');
    client.release();
    if (i >= 20) floor.push(performance.now() - start);
  }
  await pool.end();

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
  console.log(
    `RecommendProducts over Connect (${CALLS} calls): p50 ${ms(q(timings, 0.5))}  p95 ${ms(q(timings, 0.95))}`,
  );
  console.log(`floor: pass + 2 statements by hand:      p50 ${ms(q(floor, 0.5))}  p95 ${ms(q(floor, 0.95))}`);
  console.log(`in-memory pass (filter, score, top 5):   p50 ${ms(q(pass, 0.5))}  p95 ${ms(q(pass, 0.95))}`);
  const perProduct = (runs: number[]) => `${((q(runs, 0.5) * 1e6) / SIZE).toFixed(0)} ns per product`;
  console.log(`engine, a scorer per product: p50 ${ms(q(engineRuns, 0.5))} = ${perProduct(engineRuns)}`);
  console.log(`engine, scoreColumns:         p50 ${ms(q(columnRuns, 0.5))} = ${perProduct(columnRuns)}`);
  console.log(`naive (load all from PostgreSQL per call, compile, score, sort): p50 ${ms(q(naive, 0.5))}`);
  console.log(
    `\nRecommendProducts / floor: p50 ${(q(timings, 0.5) / q(floor, 0.5)).toFixed(2)}×; naive / RecommendProducts: ${(q(naive, 0.5) / q(timings, 0.5)).toFixed(0)}× slower (target p50 < 10 ms)`,
  );
  await core.close();
} finally {
  await orm.close();
  await db.drop();
  await stopTestDatabaseServer();
}

/** Starts the V8 CPU profiler in this process; the returned function stops it and writes the profile. */
async function startProfiler(): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync('.data/profiles', { recursive: true });
    const file = `.data/profiles/match-${Date.now()}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`CPU profile of the RecommendProducts calls: ${file}`);
    session.disconnect();
  };
}
