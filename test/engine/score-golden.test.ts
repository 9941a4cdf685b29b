import assert from 'node:assert/strict';
import { deriveProduct } from '../../services/catalog/derive.ts';
import {
  compileProduct,
  ENGINE_VERSION,
  type EngineProduct,
  score,
} from '../../services/match/engine/index.ts';
import type { Concern } from '../../services/shared/measures.ts';
import { rawProduct } from '../support/raw-product.ts';

/**
 * Golden vectors: fixed concern sets × fixed products → exact scores, for ENGINE_VERSION 1.1.0 and the
 * knowledge base as committed. A change to the formula or the knowledge base that moves any score must
 * update this table on purpose (and bump the matching version). 1.1.0 added the maintenance score of a
 * scan with no concern (the `none` rows, null in 1.0.0); every other row is unchanged from 1.0.0.
 */

function product(ingredients: string | null, name = 'Golden'): EngineProduct {
  return compileProduct(deriveProduct(rawProduct('golden', { name, ingredients })));
}

const PRODUCTS = {
  // Evidence acne 3, redness 2, pores 3, oiliness 3 (capped), wrinkles 1 …; no flags; suits every skin type.
  niacinamide: product(
    'Aqua (Water), Niacinamide, Pentylene Glycol, Zinc PCA, Dimethyl Isosorbide, Tamarindus Indica Seed Gum, Xanthan gum, Isoceteth-20, Ethoxydiglycol, Phenoxyethanol, Chlorphenesin.',
  ),
  // Evidence acne 3, pores 3, oiliness 3, texture 2, redness 1; flag fungal_acne_trigger (polysorbate 20).
  bha: product(
    'Water (Aqua), Methylpropanediol, Butylene Glycol, Salicylic Acid, Polysorbate 20, Camellia Oleifera Leaf Extract (Green Tea), Sodium Hydroxide, Tetrasodium EDTA.',
  ),
  // Evidence redness 1; flags fragrance, fungal_acne_trigger, pore_clogging, rich_texture; suits dry, normal.
  richCream: product(
    'Aqua, Paraffinum Liquidum, Cera Microcristallina, Glycerin, Lanolin Alcohol (Eucerit), Paraffin, Panthenol, Magnesium Sulfate, Decyl Oleate, Octyldodecanol, Aluminum Stearates, Citric Acid, Magnesium Stearate, Limonene, Geraniol, Hydroxycitronellal, Linalool, Citronellol, Benzyl Benzoate, Alpha-Isomethyl Ionone, Parfum.',
  ),
  // Niacinamide evidence (2 for most concerns); flags fragrance, drying_alcohol, fungal_acne_trigger, pore_clogging.
  scentedToner: product('Water, Niacinamide, Alcohol Denat., Isopropyl Myristate, Parfum'),
  plain: product('Water, Glycerin'),
  // A sun product (SPF in the name) with a UV filter and four barrier-support ingredients; no flags.
  barrierSpf: product(
    'Water, Zinc Oxide, Glycerin, Ceramide NP, Cholesterol, Niacinamide, Phenoxyethanol',
    'Barrier Day Fluid SPF 30',
  ),
  noList: product(null),
};

const CONCERNS: Record<string, Concern[]> = {
  acneRedness: [
    { name: 'acne', severity: 0.5 },
    { name: 'redness', severity: 0.2 },
  ],
  redness: [{ name: 'redness', severity: 0.8 }],
  oily: [
    { name: 'oiliness', severity: 0.6 },
    { name: 'pores', severity: 0.3 },
    { name: 'acne', severity: 0.1 },
  ],
  ageing: [
    { name: 'wrinkles', severity: 1 },
    { name: 'dark_spots', severity: 0.4 },
  ],
  worstReactive: [
    { name: 'acne', severity: 1 },
    { name: 'redness', severity: 1 },
    { name: 'pores', severity: 1 },
  ],
  none: [],
};

type Row = readonly [
  product: keyof typeof PRODUCTS,
  concerns: string,
  none: number | null,
  dry: number | null,
  oily: number | null,
];

const TABLE: readonly Row[] = [
  ['niacinamide', 'acneRedness', 88, 88, 88],
  ['niacinamide', 'redness', 67, 67, 67],
  ['niacinamide', 'oily', 100, 100, 100],
  ['niacinamide', 'ageing', 45, 45, 45],
  ['niacinamide', 'none', 38, 38, 38],
  ['bha', 'acneRedness', 71, 71, 71],
  ['bha', 'redness', 33, 33, 33],
  ['bha', 'oily', 97, 97, 97],
  ['bha', 'ageing', 0, 0, 0],
  ['richCream', 'acneRedness', 9, 9, 7],
  ['richCream', 'redness', 26, 26, 20],
  ['richCream', 'oily', 0, 0, 0],
  ['richCream', 'none', 38, 38, 28],
  ['scentedToner', 'acneRedness', 42, 29, 42],
  ['scentedToner', 'redness', 41, 28, 41],
  ['scentedToner', 'oily', 56, 42, 56],
  ['scentedToner', 'ageing', 45, 36, 45],
  ['scentedToner', 'worstReactive', 27, 27, 27],
  ['scentedToner', 'none', 13, 13, 13],
  ['plain', 'acneRedness', 0, 0, 0],
  ['plain', 'none', 38, 38, 38],
  ['barrierSpf', 'none', 100, 100, 100],
  ['noList', 'acneRedness', null, null, null],
  ['noList', 'none', null, null, null],
];

describe('match score golden vectors', () => {
  it('are for engine 1.1.0', () => assert.equal(ENGINE_VERSION, '1.1.0'));

  for (const [productName, concernsName, none, dry, oily] of TABLE) {
    it(`${productName} × ${concernsName}`, () => {
      const engineProduct = PRODUCTS[productName];
      const concerns = CONCERNS[concernsName]!;
      assert.deepEqual(
        [
          score(concerns, engineProduct),
          score(concerns, engineProduct, 'dry'),
          score(concerns, engineProduct, 'oily'),
        ],
        [none, dry, oily],
      );
    });
  }

  it('match the hand calculation of docs/matching-engine.md', () => {
    // acne w = 250 + 500 = 750 (evidence 3), redness w = 250 + 200 = 450 (evidence 1):
    // coverage = (750·3 + 450·1) / (3 · 1200) = 0.75; fungal-acne × acne costs 10 % · 750/1250 = 6 %;
    // 100 · 0.75 · 0.94 = 70.5, rounded half up to 71.
    assert.equal(score(CONCERNS.acneRedness!, PRODUCTS.bha), 71);
    // The toner's conflicts add up to 115 % against this scan and stop at the 60 % cap:
    // coverage (1250·2 · 3) / (3 · 3750) = 2/3; 100 · 2/3 · 0.4 = 26.7 → 27, with or without a stated type.
    assert.equal(score(CONCERNS.worstReactive!, PRODUCTS.scentedToner, 'dry'), 27);
  });

  it('match the maintenance hand calculation of docs/matching-engine.md', () => {
    // Rich cream, no concern: gentle 2 − 1 (fragrance) = 1; barrier: glycerin, panthenol = 2; no sun:
    // 100 · 3/8 = 37.5 → 38. It suits dry and normal skin only, so stated oily: 37.5 · 3/4 = 28.1 → 28.
    assert.equal(score([], PRODUCTS.richCream), 38);
    assert.equal(score([], PRODUCTS.richCream, 'oily'), 28);
    // Scented toner: gentle 0 (fragrance, drying alcohol), barrier 1 (niacinamide): 100 · 1/8 = 12.5 → 13.
    assert.equal(score([], PRODUCTS.scentedToner), 13);
  });
});
