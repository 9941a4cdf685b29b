/**
 * `npm run catalog:import -- [--replace] FILE` imports a catalog file (CSV or JSON Lines,
 * docs/catalog-format.md): a progress bar while it upserts, then every warning (imported, but the
 * ingredient field is not a list) and every rejected record with its line in the file and the reason.
 * `--replace` makes it a full import: products the file does not list are withdrawn. Exits 1 when any
 * record was rejected (the others are imported), 2 when the file cannot be read or the usage is wrong, 3
 * when the database cannot be reached or fails during the import, 78 when the configuration is refused.
 */
import cliProgress from 'cli-progress';
import { importRecords, readCatalogFile } from '../services/catalog/catalog-import.ts';
import { withDatabase } from './cli-database.ts';

const args = process.argv.slice(2);
const replace = args.includes('--replace');
const files = args.filter((arg) => arg !== '--replace');
const file = files[0];
if (file === undefined || files.length > 1 || file.startsWith('--')) {
  console.error('usage: npm run catalog:import -- [--replace] FILE.csv|FILE.jsonl');
  process.exit(2);
}

let records: ReturnType<typeof readCatalogFile>;
try {
  records = readCatalogFile(file);
} catch (err) {
  console.error(`cannot read ${file}: ${(err as Error).message}`);
  process.exit(2);
}

const stopped = {
  name: 'catalog:import',
  // Each batch is written in a transaction of its own: what was written stays (without any demo product,
  // catalog-import.ts), nothing is withdrawn, and running the same import again completes it.
  failure: 'Any products written before it stay, nothing was withdrawn: run the import again',
};
const report = await withDatabase(stopped, async (orm) => {
  const bar = new cliProgress.SingleBar(
    { format: 'importing [{bar}] {value}/{total} products', noTTYOutput: true, notTTYSchedule: 1000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(records.filter((r) => 'product' in r).length, 0);
  try {
    return await importRecords(orm.em.fork(), records, { replace, onProgress: (done) => bar.update(done) });
  } finally {
    bar.stop();
  }
});

console.log(`${report.imported} products imported or updated from ${file}`);
if (report.demoRemoved > 0)
  console.log(`${report.demoRemoved} demo products removed: the catalog is real now`);
if (replace) {
  if (report.withdrawSkipped !== null) console.error(`nothing withdrawn: ${report.withdrawSkipped}`);
  else console.log(`${report.withdrawn.length} products withdrawn (absent from ${file})`);
}
for (const { line, product_id, message } of report.warnings) {
  console.error(`warning line ${line} (${product_id}): ${message}`);
}
if (report.warnings.length > 0) console.error(`${report.warnings.length} warnings`);
for (const { line, reason } of report.rejected) console.error(`rejected line ${line}: ${reason}`);
if (report.rejected.length > 0) {
  console.error(`${report.rejected.length} records rejected`);
  process.exit(1);
}
