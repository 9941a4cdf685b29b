/**
 * `npm run bench:import`: the catalog importer against PostgreSQL's own floor, in one run on one database.
 * A generated catalog (generated-catalog.ts, 100 000 products by default) is written as JSON Lines, read
 * back with the importer's reader, and imported with `importRecords` — derivation, warnings, progress and
 * all — into an empty table, then again over itself (every row an update), then once more with every
 * ingredient list distinct (nothing to reuse). The floor is PostgreSQL `COPY` of the same rows (derived
 * beforehand, as CSV) into the empty table. Target: ≥ 20 000 products/s. Last, core's catalog load
 * (LiveCatalog.reload) of the copied rows is timed the same way.
 * BENCH_PROFILE=1 writes a CPU profile of the first import to .data/profiles/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pino } from 'pino';
import { importRecords, readCatalogFile } from '../../services/catalog/catalog-import.ts';
import { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import type { RawProduct } from '../../services/catalog/derive.ts';
import { createDeriver } from '../../services/catalog/formula-memo.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { generateCatalog } from './generated-catalog.ts';
import { postgresCpuMs } from './load.ts';

const SIZE = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const FILE = '.data/bench-catalog.jsonl';
const DISTINCT_FILE = '.data/bench-catalog-distinct.jsonl';

const COPY_COLUMNS = [
  'product_id',
  'name',
  'brand',
  'product_type',
  'country',
  'image_url',
  'product_url',
  'buy_url',
  'ingredients_text',
  'declared_skin_types',
  'vegan',
  'cruelty_free',
  'demo',
  'derived',
].join(', ');

const writeJsonLines = (path: string, products: readonly RawProduct[]) =>
  writeFileSync(path, `${products.map((product) => JSON.stringify(product)).join('\n')}\n`);
mkdirSync('.data', { recursive: true });
const products = generateCatalog(SIZE);
writeJsonLines(FILE, products);
writeJsonLines(DISTINCT_FILE, generateCatalog(SIZE, true));

const db = await createTestDatabase();
const orm = await openDatabase(db.url);
const client = new pg.Client({ connectionString: db.url });
await client.connect();
try {
  await migrate(orm);
  let t = performance.now();
  const records = readCatalogFile(FILE);
  console.log(`read and checked ${records.length} records in ${(performance.now() - t).toFixed(0)} ms`);

  // CPU time per product, of this process and of the PostgreSQL server (all its processes, when it is
  // the embedded one), says what a busy shared machine's wall-clock rate cannot: where the work is.
  const pgCpuMs = () => (process.env.DATABASE_URL ? 0 : postgresCpuMs('.data/test-pg'));
  const timed = async (what: string, run: () => Promise<unknown>) => {
    const started = performance.now();
    const ownBefore = process.cpuUsage();
    const pgBefore = pgCpuMs();
    await run();
    const seconds = (performance.now() - started) / 1000;
    const own = process.cpuUsage(ownBefore);
    const ownUs = (own.user + own.system) / SIZE;
    const pgUs = ((pgCpuMs() - pgBefore) * 1000) / SIZE;
    const rate = SIZE / seconds;
    console.log(
      `${what.padEnd(50)} ${seconds.toFixed(2).padStart(6)} s ${rate.toFixed(0).padStart(7)}/s   CPU per product: node ${ownUs.toFixed(0).padStart(4)} µs, PostgreSQL ${pgUs.toFixed(0).padStart(4)} µs`,
    );
    return rate;
  };
  const truncate = () => client.query('truncate products');
  let progressCalls = 0;
  const options = { onProgress: () => progressCalls++ };

  console.log(`\n${SIZE} products (320 distinct ingredient lists unless said), this machine:\n`);
  const profiler = process.env.BENCH_PROFILE === '1' ? await startProfiler() : undefined;
  const first = await timed('importRecords into an empty catalog', () =>
    importRecords(orm.em.fork(), records, options),
  );
  await profiler?.();
  const again = await timed('importRecords again (every row an update)', () =>
    importRecords(orm.em.fork(), records, options),
  );
  await truncate();
  t = performance.now();
  const distinctRecords = readCatalogFile(DISTINCT_FILE);
  const distinct = await timed('importRecords, every ingredient list distinct', () =>
    importRecords(orm.em.fork(), distinctRecords, options),
  );

  await truncate();
  const derive = createDeriver();
  const csv = products.map((raw) => csvLine(raw, derive(raw)));
  const copy = await timed('floor: COPY of the same rows (derived beforehand)', async () => {
    const now = new Date().toISOString();
    const stream = client.query(
      copyFrom(`copy products (${COPY_COLUMNS}, updated_at) from stdin with (format csv)`),
    );
    await pipeline(Readable.from(csv.map((line) => `${line},${now}\n`)), stream);
  });
  // What every core replica does on catalog_changed: read every derived document and index it.
  const live = new LiveCatalog(orm, pino({ level: 'silent' }));
  await timed('catalog load (LiveCatalog.reload) of those rows', () => live.reload());
  console.log(`\n(progress reported ${progressCalls} times)`);
  console.log(
    `importRecords / COPY: ${(first / copy).toFixed(2)}× into an empty catalog, ${(again / copy).toFixed(2)}× as updates, ${(distinct / copy).toFixed(2)}× with distinct lists (target ≥ 20 000 products/s)`,
  );
} finally {
  await client.end();
  await orm.close();
  await db.drop();
  await stopTestDatabaseServer();
}

/** One products row in COPY's CSV format: unquoted empty is NULL, every value else quoted. */
function csvLine(raw: RawProduct, derived: object): string {
  const value = (v: unknown) =>
    v === null || v === undefined
      ? ''
      : `"${(typeof v === 'string' ? v : JSON.stringify(v)).replaceAll('"', '""')}"`;
  return [
    raw.product_id,
    raw.name,
    raw.brand,
    raw.product_type,
    raw.country,
    raw.image_url,
    raw.product_url,
    raw.buy_url,
    raw.ingredients,
    raw.skin_types,
    raw.vegan,
    raw.cruelty_free,
    raw.demo === true,
    derived,
  ]
    .map(value)
    .join(',');
}

async function startProfiler(): Promise<() => Promise<void>> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync('.data/profiles', { recursive: true });
    const file = `.data/profiles/import-${Date.now()}.cpuprofile`;
    writeFileSync(file, JSON.stringify(profile));
    console.log(`CPU profile of the first import: ${file}`);
    session.disconnect();
  };
}
