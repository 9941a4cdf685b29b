/**
 * Ingredient lists as retailers export them, beyond inci-label-shapes: numbered lists, a free-from claim
 * written as a list entry that enumerates across commas, and misspelled names of the ingredients flags and
 * actives rest on. Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { analyseFormula, deriveProduct } from '../../services/catalog/derive.ts';
import { readInci } from '../../services/catalog/inci/parse.ts';
import data from '../../services/catalog/inci/synonyms.json' with { type: 'json' };
import { canonicalName, synonymsOf } from '../../services/catalog/inci/synonyms.ts';
import { ingredientFacts } from '../../services/catalog/knowledge/facts.ts';
import type { Concern } from '../../services/shared/measures.ts';
import { rawProduct } from '../support/raw-product.ts';

const names = (text: string) => {
  const reading = readInci(text);
  assert.equal(reading.status, 'listed', `${text}: ${reading.note}`);
  return reading.ingredients.map((ingredient) => ingredient.name);
};
const flags = (text: string) => analyseFormula(text, false).flags;
const misspellings = data.misspellings as Record<string, string[]>;

describe('INCI parser on numbered, enumerated and misspelled lists', () => {
  it('the numbers of a numbered list are markers, not parts of the names', () => {
    const expected = ['water', 'glycerin', 'niacinamide', 'alcohol denat', 'fragrance'];
    for (const text of [
      '1. Water 2. Glycerin 3. Niacinamide 4. Alcohol Denat. 5. Parfum',
      '1) Water, 2) Glycerin, 3) Niacinamide, 4) Alcohol Denat., 5) Parfum',
      '1 Water\n2 Glycerin\n3 Niacinamide\n4 Alcohol Denat.\n5 Parfum',
      'Ingredients: (1) water (2) glycerin (3) niacinamide (4) alcohol denat. (5) parfum',
    ]) {
      assert.deepEqual(names(text), expected, text);
      assert.deepEqual(flags(text), ['fragrance', 'drying_alcohol'], text);
      assert.ok(analyseFormula(text, false).keyIngredients.length > 0, text);
    }
    // Numbers in names stay, numbered or not; a name ending in a number before a marker keeps it.
    const numbered =
      '1. Water 2. CI 77891 3. Palmitoyl Tripeptide-1 4. 1,2-Hexanediol 5. PEG-100 Stearate ' +
      '6. Polysorbate 20 7. Ceteareth-20 8. Acrylates/C10-30 Alkyl Acrylate Crosspolymer 9. Vitamin B3 ' +
      '10. Zinc Oxide 10.5% 11. Alcohol';
    const expectedNumbered = [
      'water',
      'titanium dioxide',
      'palmitoyl tripeptide-1',
      '1,2-hexanediol',
      'peg-100 stearate',
      'polysorbate 20',
      'ceteareth-20',
      'acrylates/c10-30 alkyl acrylate crosspolymer',
      'niacinamide',
      'zinc oxide',
      'alcohol',
    ];
    assert.deepEqual(names(numbered), expectedNumbered);
    const plain = numbered.replace(/(?:^|\s)\d+\. /g, (marker) => (marker.startsWith(' ') ? ', ' : ''));
    assert.deepEqual(names(plain), expectedNumbered, plain);
    // Numbers not counted from 1 at an entry start are not markers.
    assert.deepEqual(names('Water, Polysorbate 20, Glycerin 2. Alcohol'), [
      'water',
      'polysorbate 20',
      'glycerin 2',
      'alcohol',
    ]);
  });

  it('a free-from claim entry that enumerates up to "or"/"and" leaves out what it enumerates, and no more', () => {
    for (const text of [
      'Aqua, Glycerin, Without Perfume, Alcohol or Parabens, Niacinamide',
      'Aqua, Glycerin, Free from Fragrance, Alcohol, Sulfates, and Parabens, Niacinamide',
      'Aqua, Glycerin, Sans Parfum, Alcool ou Parabènes, Niacinamide',
    ]) {
      const reading = readInci(text);
      assert.deepEqual(
        reading.ingredients.map((ingredient) => ingredient.name),
        ['water', 'glycerin', 'niacinamide'],
        text,
      );
      assert.match(reading.note ?? '', /left out text that is not an ingredient: ".*(?:Parabens|Parabènes)"/);
      assert.deepEqual(flags(text), [], text);
    }
    // Without the conjunction, or with an item no claim names, what follows the claim entry stays listed.
    assert.deepEqual(names('Aqua, Without Perfume, Alcohol, Parabens, Niacinamide'), [
      'water',
      'alcohol',
      'parabens',
      'niacinamide',
    ]);
    assert.deepEqual(names('Aqua, Without Perfume, Sodium Tallowate or Sodium Palmitate, Glycerin'), [
      'water',
      'sodium tallowate',
      'sodium palmitate',
      'glycerin',
    ]);
    assert.deepEqual(flags('Aqua, Without Perfume, Alcohol or Glycerin, Alcohol Denat.'), ['drying_alcohol']);
  });

  it('misspelled names of flagged ingredients and actives are those ingredients', () => {
    const text =
      'Aqua, Niacinimide, Salicilic Acid, Hyaluronic Acd, Tocopherol Acetate, Alchohol Denat., Fragance';
    assert.deepEqual(names(text), [
      'water',
      'niacinamide',
      'salicylic acid',
      'hyaluronic acid',
      'tocopheryl acetate',
      'alcohol denat',
      'fragrance',
    ]);
    const formula = analyseFormula(text, false);
    assert.deepEqual(formula.flags, ['fragrance', 'drying_alcohol']);
    for (const active of ['Niacinimide', 'Salicilic Acid'])
      assert.ok(formula.keyIngredients.includes(active));
    for (const [canonical, spellings] of Object.entries(misspellings)) {
      for (const spelling of spellings) {
        assert.equal(canonicalName(spelling), canonical, spelling);
        // Each is an exact spelling that names nothing else, and is no synonym.
        assert.notEqual(spelling, canonical);
        assert.ok(!synonymsOf(canonical).includes(spelling), spelling);
      }
    }
    // Near spellings of other ingredients are those ingredients: no fuzzy matching.
    assert.equal(canonicalName('Methanol'), 'methanol');
    assert.equal(canonicalName('Retinal'), 'retinal');
    assert.equal(canonicalName('Squalene'), 'squalene');
    assert.equal(ingredientFacts(canonicalName('Salicylate')).active, null);
  });

  it('recommend_products keeps these products out of free_from and ranks their actives', () => {
    const lists: Record<string, string> = {
      plain: 'Water, Salicylic Acid, Glycerin, Xanthan Gum',
      numbered: '1. Water 2. Salicylic Acid 3. Alcohol Denat. 4. Glycerin',
      misspelled: 'Water, Salicilic Acid, Alchohol, Glycerin, Fragance',
      claimed: 'Water, Salicylic Acid, Glycerin, Without Perfume, Alcohol or Parabens',
    };
    const index = new CatalogIndex(
      Object.entries(lists).map(([id, ingredients]) => deriveProduct(rawProduct(id, { ingredients }))),
    );
    const concerns: Concern[] = [{ name: 'acne', severity: 0.8 }];
    const ranked = (freeFrom: string[]) =>
      index
        .recommend(concerns, null, create(ProductFilterSchema, { freeFrom }), 10)
        .best.map(({ entry, score }) => [entry.product.product_id, score] as const);
    assert.deepEqual(
      ranked(['alcohol'])
        .map(([id]) => id)
        .sort(),
      ['claimed', 'plain'],
    );
    assert.deepEqual(
      ranked(['fragrance'])
        .map(([id]) => id)
        .sort(),
      ['claimed', 'numbered', 'plain'],
    );
    const all = new Map(ranked([]));
    for (const id of Object.keys(lists))
      assert.ok((all.get(id) ?? 0) >= all.get('plain')!, `${id}: ${all.get(id)}`);
  });
});
