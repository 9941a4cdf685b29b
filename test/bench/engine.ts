/**
 * Scoring 100 000 products for one scan: `npm run bench:engine`.
 *
 * Prints the median time of createScorer + scoring a 100 000-product catalog, against a baseline measured
 * in the same run (a bare loop reading the same fields), as the style guide asks of performance claims.
 * The catalog is the sample catalog repeated; compilation happens once, outside the timed part.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { compileProduct, createScorer, type EngineProduct } from '../../services/match/engine/index.ts';
import type { Concern } from '../../services/shared/measures.ts';

const CATALOG_SIZE = 100_000;
const ROUNDS = 31;

const lines = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n');
const compiled = lines.map((line) => compileProduct(deriveProduct(JSON.parse(line) as RawProduct)));
const catalog: EngineProduct[] = Array.from(
  { length: CATALOG_SIZE },
  (_, i) => compiled[i % compiled.length]!,
);
const concerns: Concern[] = [
  { name: 'acne', severity: 0.62 },
  { name: 'redness', severity: 0.41 },
  { name: 'pores', severity: 0.3 },
  { name: 'oiliness', severity: 0.22 },
  { name: 'texture', severity: 0.1 },
  { name: 'dullness', severity: 0.05 },
];
const scores = new Int16Array(CATALOG_SIZE);

function median(run: () => void): number {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

const baseline = median(() => {
  for (let i = 0; i < CATALOG_SIZE; i++) scores[i] = (catalog[i]!.evidence & 3) + catalog[i]!.flags;
});
const engine = median(() => {
  const scoreFor = createScorer(concerns, 'oily');
  for (let i = 0; i < CATALOG_SIZE; i++) scores[i] = scoreFor(catalog[i]!) ?? -1;
});

console.log(`catalog ${CATALOG_SIZE} products, ${concerns.length} concerns, median of ${ROUNDS} rounds`);
console.log(`baseline field read: ${baseline.toFixed(2)} ms`);
console.log(`engine score:        ${engine.toFixed(2)} ms  (${(engine / baseline).toFixed(1)}× baseline)`);
