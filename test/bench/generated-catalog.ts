/**
 * The benchmarks' large catalog: the demo catalog's 320 formulations under new ids, names, brands and
 * product types, as many products as asked, as real (not demo) products. With `distinctLists`, every product's ingredient list is also
 * made unique (one more invented ingredient), so no two products share a formula: the importer's worst
 * case, where reading each list once per import saves nothing.
 */
import { readFileSync } from 'node:fs';
import type { RawProduct } from '../../services/catalog/derive.ts';
import { PRODUCT_TYPES } from '../../services/match/match-input.ts';

const samples = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as RawProduct);

export function generateCatalog(size: number, distinctLists = false): RawProduct[] {
  return Array.from({ length: size }, (_, i) => {
    const base = samples[i % samples.length]!;
    const { demo: _demo, ...real } = base;
    return {
      ...real,
      product_id: `gen-${String(i).padStart(6, '0')}`,
      name: `${base.name} ${i}`,
      brand: `Brand ${i % 250}`,
      product_type: PRODUCT_TYPES[i % PRODUCT_TYPES.length]!,
      ingredients:
        distinctLists && base.ingredients ? `${base.ingredients}, Plant Extract No ${i}` : base.ingredients,
    };
  });
}
