/**
 * `npm run bench:catalog-search`: search_products' in-memory pass (CatalogIndex.search) at 100 000 products
 * (the generated benchmark catalog), one page of 20, for queries that fill a page at once, that match a few
 * products or none (a whole pass over the catalog: the worst case), and that name ingredients by another
 * name (`vitamin c`, `bha`, `hyaluronic acid`). Prints the first such search (which builds the catalog's name
 * postings), then p50/p95 of a page and the matches of each query.
 */
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { generateCatalog } from './generated-catalog.ts';

const SIZE = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const QUERIES = [
  '',
  'serum',
  'niacinamide',
  'ascorbic acid',
  'vitamin c',
  'hyaluronic acid',
  'bha',
  'vitamin c serum brand 7',
  'ceramides',
  'unobtainium',
  'glycerin unobtainium',
  'aqua glycerin niacinamide zinc pca tocopherol unobtainium',
];

let t = performance.now();
const index = new CatalogIndex(generateCatalog(SIZE).map(deriveProduct));
console.log(`index of ${index.size} products built in ${(performance.now() - t).toFixed(0)} ms`);

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
t = performance.now();
index.search('niacinamide', undefined, undefined, 21);
// After this change the first query naming an ingredient builds the catalog's name postings.
console.log(`first search naming an ingredient: ${(performance.now() - t).toFixed(1)} ms`);
for (const query of QUERIES) {
  const all = index.search(query, undefined, undefined, SIZE).length;
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    t = performance.now();
    index.search(query, undefined, undefined, 21);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${JSON.stringify(query).padEnd(60)} matches ${String(all).padStart(6)}  page p50 ${quantile(times, 0.5).toFixed(2)} ms  p95 ${quantile(times, 0.95).toFixed(2)} ms`,
  );
}
