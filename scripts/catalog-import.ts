/**
 * `npm run catalog:import -- FILE` imports a catalog file (CSV or JSON Lines, docs/catalog-format.md):
 * a progress bar while it upserts, then every rejected record with its line and reason. Exits 1 when any
 * record was rejected (the others are imported), 2 when the file cannot be read.
 */
import cliProgress from 'cli-progress';
import { importRecords, readCatalogFile } from '../services/catalog/catalog-import.ts';
import { withDatabase } from './cli-database.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: npm run catalog:import -- FILE.csv|FILE.jsonl');
  process.exit(2);
}

let records: ReturnType<typeof readCatalogFile>;
try {
  records = readCatalogFile(file);
} catch (err) {
  console.error(`cannot read ${file}: ${(err as Error).message}`);
  process.exit(2);
}

const report = await withDatabase(async (orm) => {
  const bar = new cliProgress.SingleBar(
    { format: 'importing [{bar}] {value}/{total} products', noTTYOutput: true, notTTYSchedule: 1000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(records.filter((r) => 'product' in r).length, 0);
  try {
    return await importRecords(orm.em.fork(), records, (done) => bar.update(done));
  } finally {
    bar.stop();
  }
});

console.log(`${report.imported} products imported or updated from ${file}`);
for (const { line, reason } of report.rejected) console.error(`rejected line ${line}: ${reason}`);
if (report.rejected.length > 0) {
  console.error(`${report.rejected.length} records rejected`);
  process.exit(1);
}
