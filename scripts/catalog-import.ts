/**
 * `npm run catalog:import -- [--replace] FILE` imports a catalog file (CSV/TSV/Unicode text, JSON Lines or
 * a JSON array, docs/catalog-format.md): a progress bar while it upserts, then every warning (imported, but
 * the ingredient field is not a list, a link left empty), every product skipped because the shop's export
 * says it is not for sale (a draft, archived, private or hidden one) and every rejected record, each with its
 * line in the file and the reason. Every value from the file is printed escaped (no control character
 * reaches the terminal). `--replace` makes it a full import: products the file does not list are withdrawn
 * — but not more than half the catalog without `--force`. Ctrl-C or SIGTERM stops it with one line saying
 * what is left (exit 130 or 143). Exits 1 when any
 * record was rejected (the others are imported), 2 when the file cannot be read (its encoding, a column no
 * field answers to or named twice, a quote never closed, JSON that is not an array) or the usage is wrong, 3
 * when the database cannot be reached or fails during the import, 78 when the configuration is refused.
 */
import cliProgress from 'cli-progress';
import { importRecords, readCatalogFile } from '../services/catalog/catalog-import.ts';
import { printable } from '../services/catalog/catalog-schema.ts';
import { announceCatalogChange } from '../services/catalog/product-writer.ts';
import type { Orm } from '../services/core/db/orm.ts';
import { plainSql } from '../services/core/db/plain-sql.ts';
import { withDatabase } from './cli-database.ts';

const args = process.argv.slice(2);
const replace = args.includes('--replace');
const force = args.includes('--force');
const files = args.filter((arg) => arg !== '--replace' && arg !== '--force');
const file = files[0];
if (file === undefined || files.length > 1 || file.startsWith('--') || (force && !replace)) {
  console.error(
    'usage: npm run catalog:import -- [--replace [--force]] FILE.csv|FILE.tsv|FILE.txt|FILE.jsonl|FILE.json',
  );
  process.exit(2);
}

let records: ReturnType<typeof readCatalogFile>;
try {
  records = readCatalogFile(file);
} catch (err) {
  console.error(printable(`cannot read ${file}: ${(err as Error).message}`));
  process.exit(2);
}

const stopped = {
  name: 'catalog:import',
  // Each batch is written in a transaction of its own: what was written stays (without any demo product,
  // catalog-import.ts), nothing is withdrawn, and running the same import again completes it.
  failure: 'Any products written before it stay, nothing was withdrawn: run the import again',
};
// Stopped by Ctrl-C or SIGTERM: the same account as a failed database (an uncommitted batch rolls back).
let withdrawing = false;
let database: Orm | undefined;
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => {
    const left = withdrawing
      ? 'Every product in the file was written; the withdrawal may not have finished: run the import again'
      : stopped.failure;
    process.stderr.write(`\n${stopped.name}: stopped by ${signal}. ${left}\n`);
    // Cores hear of the import once, as it ends (catalog-import.ts): the products written so far are
    // announced before exiting, for at most a second.
    const announced = database ? plainSql(database).then(announceCatalogChange) : Promise.resolve();
    const bound = new Promise((done) => setTimeout(done, 1000).unref());
    void Promise.race([announced, bound])
      .catch(() => {})
      .finally(() => process.exit(code));
  });
}

const report = await withDatabase(stopped, async (orm) => {
  database = orm;
  const bar = new cliProgress.SingleBar(
    { format: 'importing [{bar}] {value}/{total} products', noTTYOutput: true, notTTYSchedule: 1000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(records.filter((r) => 'product' in r).length, 0);
  try {
    return await importRecords(orm.em.fork(), records, {
      replace,
      force,
      onProgress: (done) => bar.update(done),
      onWithdraw: () => {
        withdrawing = true;
      },
    });
  } finally {
    bar.stop();
  }
});

console.log(printable(`${report.imported} products imported or updated from ${file}`));
if (report.skipped.length > 0) {
  // Not errors: the shop does not sell them now (a draft, archived, private or hidden product).
  const reasons = new Map<string, number>();
  for (const { reason } of report.skipped) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  const why = [...reasons].map(([reason, n]) => `${n} ${reason}`).join(', ');
  console.log(printable(`${report.skipped.length} products skipped as not for sale: ${why}`));
}
if (report.notForSaleWithdrawn.length > 0) {
  console.log(
    `${report.notForSaleWithdrawn.length} products withdrawn: the catalog held them, and the file says they are not for sale`,
  );
}
if (report.demoRemoved > 0)
  console.log(`${report.demoRemoved} demo products removed: the catalog is real now`);
if (replace) {
  if (report.withdrawSkipped !== null) console.error(`nothing withdrawn: ${report.withdrawSkipped}`);
  else console.log(printable(`${report.withdrawn.length} products withdrawn (absent from ${file})`));
}
for (const { line, product_id, reason } of report.skipped) {
  console.error(`skipped line ${line} (${printable(product_id)}): ${printable(reason)}`);
}
for (const { line, product_id, message } of report.warnings) {
  // Every value from the file is escaped: a control character in it never reaches the terminal.
  console.error(`warning line ${line} (${printable(product_id)}): ${printable(message)}`);
}
if (report.warnings.length > 0) console.error(`${report.warnings.length} warnings`);
for (const { line, reason } of report.rejected) console.error(`rejected line ${line}: ${printable(reason)}`);
if (report.rejected.length > 0) {
  console.error(`${report.rejected.length} records rejected`);
  process.exit(1);
}
