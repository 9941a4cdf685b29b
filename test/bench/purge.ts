/**
 * `npm run bench:purge`: the scheduled purge on a large scans table, with the partial indexes of migration
 * 0012b and without them (the table as it was before), in one run on one database. 200 000 scans by
 * default (BENCH_SCANS): most of them complete and not due, some owned by accounts, 1 % expired guest
 * scans and 1 % abandoned before any upload. Each round re-creates the due scans and times one purge;
 * rounds alternate between the two layouts and the median is printed with the ratio.
 */
import pg from 'pg';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import { purgeScans } from '../../services/scan/scan-purge.ts';
import { prepareQueue } from '../../services/scan/scan-worker.ts';
import { createLogger } from '../../services/shared/logger.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';

const SIZE = Number(process.env.BENCH_SCANS ?? 200_000);
const ROUNDS = 5;
const DAY = 24 * 60 * 60 * 1000;

const db = await createTestDatabase();
const orm = await openDatabase(db.url);
await migrate(orm);
await prepareQueue(db.url, createLogger('bench', 'warn'));
const sql = new pg.Client({ connectionString: db.url });
await sql.connect();

const now = new Date();
const settings = { now: () => now, abandonedAfterMs: DAY };
await sql.query(
  `insert into accounts (id, created_at) values ('00000000-0000-4000-8000-000000000001', now())`,
);
// Scans that stay: complete guest scans started within the last six days, and account scans of any age.
await sql.query(
  `insert into scans (id, token_hash, source, status, created_at, updated_at, expires_at, account_id)
   select gen_random_uuid(), md5(i::text), 'bench', 'complete', t, t, t + interval '7 days',
     case when i % 20 = 0 then '00000000-0000-4000-8000-000000000001'::uuid end
   from generate_series(1, $1) i, lateral (select $2::timestamptz - (i % 144) * interval '1 hour' as t) s`,
  [SIZE, now],
);

async function addDue(): Promise<void> {
  const due = Math.round(SIZE / 100);
  await sql.query(
    `insert into scans (id, token_hash, source, status, created_at, updated_at, expires_at)
     select gen_random_uuid(), md5(i::text), 'bench', 'complete', t, t, t + interval '7 days'
     from generate_series(1, $1) i, lateral (select $2::timestamptz - interval '8 days' as t) s`,
    [due, now],
  );
  await sql.query(
    `insert into scans (id, token_hash, source, status, created_at, updated_at, expires_at)
     select gen_random_uuid(), md5(i::text), 'bench', 'awaiting_upload', t, t, t + interval '7 days'
     from generate_series(1, $1) i, lateral (select $2::timestamptz - interval '2 days' as t) s`,
    [due, now],
  );
  await sql.query('analyze scans');
}

const INDEXES = [
  'create index scans_guest_expiry_idx on scans (expires_at) where account_id is null',
  `create index scans_awaiting_upload_idx on scans (created_at) where status = 'awaiting_upload'`,
];
const times: Record<'indexed' | 'before', number[]> = { indexed: [], before: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const layout of ['indexed', 'before'] as const) {
    await sql.query('drop index if exists scans_guest_expiry_idx');
    await sql.query('drop index if exists scans_awaiting_upload_idx');
    if (layout === 'indexed') for (const index of INDEXES) await sql.query(index);
    await addDue();
    const started = performance.now();
    const counts = await purgeScans(orm.em.fork(), settings);
    times[layout].push(performance.now() - started);
    const expected = Math.round(SIZE / 100);
    if (counts.expired !== expected || counts.abandoned !== expected)
      throw new Error(`purged ${JSON.stringify(counts)}, expected ${expected} of each`);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const indexed = median(times.indexed);
const before = median(times.before);
console.log(`purge of ${SIZE / 50} due scans among ${SIZE + SIZE / 50} (median of ${ROUNDS} rounds)`);
console.log(`  with the partial indexes (0012b): ${indexed.toFixed(1)} ms`);
console.log(`  without them (the table before):   ${before.toFixed(1)} ms`);
console.log(`  ratio: ${(indexed / before).toFixed(2)}x`);

await sql.end();
await orm.close();
await db.drop();
await stopTestDatabaseServer();
