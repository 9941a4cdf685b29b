/**
 * `npm run bench:match`: recommend_products in core at 100 000 products. A generated catalog (the demo
 * catalog's formulations under new ids, brands and types) is imported into PostgreSQL, core serves it,
 * and this prints, from one run:
 *   - p50/p95 of MatchService.RecommendProducts over Connect (each call on a fresh completed scan),
 *   - the in-memory pass alone (filter + score + top 5) and the engine's cost per scored product,
 *   - the naive approach measured in the same run: load every product from the database per call,
 *     compile and score them all, sort.
 * Target: p50 under 20 ms at 100 000 products.
 */
import { readFileSync } from 'node:fs';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { pino } from 'pino';
import { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { upsertProducts } from '../../services/catalog/catalog-store.ts';
import type { DerivedProduct, RawProduct } from '../../services/catalog/derive.ts';
import { startCore } from '../../services/core/core.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import { compareMatches, compileProduct, createScorer } from '../../services/match/engine/index.ts';
import { PRODUCT_TYPES } from '../../services/match/match-input.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';

const SIZE = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const NAIVE_CALLS = 5;

const samples = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as RawProduct);
const generated: RawProduct[] = Array.from({ length: SIZE }, (_, i) => {
  const base = samples[i % samples.length]!;
  const id = `gen-${String(i).padStart(6, '0')}`;
  return {
    ...base,
    product_id: id,
    name: `${base.name} ${i}`,
    brand: `Brand ${i % 250}`,
    product_type: PRODUCT_TYPES[i % PRODUCT_TYPES.length]!,
  };
});

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
  const timings: number[] = [];
  for (const [i, identity] of identities.entries()) {
    const start = performance.now();
    const res = await matches.recommendProducts(identity);
    if (res.products.length !== 5) throw new Error('expected 5 products');
    if (i >= 20) timings.push(performance.now() - start); // the first 20 warm up
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
  console.log(`in-memory pass (filter, score, top 5):   p50 ${ms(q(pass, 0.5))}  p95 ${ms(q(pass, 0.95))}`);
  const perProduct = (q(engineRuns, 0.5) * 1e6) / SIZE;
  console.log(
    `engine alone: p50 ${ms(q(engineRuns, 0.5))} per catalog = ${perProduct.toFixed(0)} ns per product`,
  );
  console.log(`naive (load all from PostgreSQL per call, compile, score, sort): p50 ${ms(q(naive, 0.5))}`);
  console.log(
    `\nnaive / RecommendProducts: ${(q(naive, 0.5) / q(timings, 0.5)).toFixed(0)}× slower (target p50 < 20 ms)`,
  );
  await core.close();
} finally {
  await orm.close();
  await db.drop();
  await stopTestDatabaseServer();
}
