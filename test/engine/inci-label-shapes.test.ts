/**
 * Ingredient lists in shapes real labels and shop pages print them, beyond those of inci-parse and
 * inci-retailer: other scripts' punctuation, trademark signs, spaced dashes between entries, headings in
 * other languages and of US drug-facts panels, notes in words after a name, accented and translated names.
 * Every case checks what a person filtering on it relies on: the actives and the caution flags.
 * Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { analyseFormula, deriveProduct } from '../../services/catalog/derive.ts';
import { readInci } from '../../services/catalog/inci/parse.ts';
import type { Concern } from '../../services/shared/measures.ts';
import { rawProduct } from '../support/raw-product.ts';

const names = (text: string) => {
  const reading = readInci(text);
  assert.equal(reading.status, 'listed', `${text}: ${reading.note}`);
  return reading.ingredients.map((ingredient) => ingredient.name);
};
const flags = (text: string, sun = false) => analyseFormula(text, sun).flags;

describe('INCI parser on label shapes', () => {
  it('full-width and ideographic punctuation separates as its ASCII form does', () => {
    const expected = ['water', 'glycerin', 'niacinamide', 'alcohol denat', 'fragrance'];
    for (const text of [
      'Water，Glycerin，Niacinamide，Alcohol Denat.，Parfum',
      'Water、Glycerin、Niacinamide、Alcohol Denat.、Parfum。',
      'Water；Glycerin；Niacinamide；Alcohol Denat.；Parfum',
      'Water（Aqua），Glycerin，Niacinamide（Vitamin B3）， Alcohol Denat.，Parfum（Fragrance）',
      'Ingredients：Water, Glycerin, Niacinamide ５％, Alcohol Denat., Parfum',
    ]) {
      assert.deepEqual(names(text), expected, text);
      assert.deepEqual(flags(text), ['fragrance', 'drying_alcohol'], text);
    }
  });

  it('invisible characters inside names do not change them', () => {
    const text = 'Water,\u200bGlycerin,\u200bSali\u00adcylic Acid,\ufeffAlcohol\u2060 Denat.';
    assert.deepEqual(names(text), ['water', 'glycerin', 'salicylic acid', 'alcohol denat']);
    assert.deepEqual(flags(text), ['drying_alcohol']);
    assert.ok(analyseFormula(text, false).targets.includes('acne'));
  });

  it('trademark signs are not part of a name', () => {
    const text =
      'Aqua, Niacinamide®, Salicylic Acid™, Matrixyl™ 3000 (Palmitoyl Tripeptide-1), Glycerin©, Parfum℠';
    assert.deepEqual(names(text), [
      'water',
      'niacinamide',
      'salicylic acid',
      'matrixyl 3000',
      'glycerin',
      'fragrance',
    ]);
    const formula = analyseFormula(text, false);
    assert.deepEqual(formula.keyIngredients.slice(0, 2), ['Niacinamide', 'Salicylic Acid']);
    assert.deepEqual(formula.flags, ['fragrance']);
  });

  it('a dash or tilde with spaces around it separates entries; a hyphen inside a name does not', () => {
    const expected = ['water', 'ceteareth-20', 'salicylic acid', 'alcohol denat', 'fragrance'];
    for (const text of [
      'Water - Ceteareth-20 - Salicylic Acid - Alcohol Denat. - Parfum',
      'WATER – CETEARETH-20 – SALICYLIC ACID – ALCOHOL DENAT. – PARFUM',
      'Water ~ Ceteareth-20 ~ Salicylic Acid ~ Alcohol Denat. ~ Parfum',
      'Aqua - Water, Ceteareth-20, Salicylic Acid, Alcohol Denat., Parfum',
    ]) {
      assert.deepEqual(names(text), expected, text);
      assert.deepEqual(flags(text), ['fragrance', 'drying_alcohol'], text);
    }
    assert.deepEqual(names('Water, 1,2-Hexanediol, PEG-40 Hydrogenated Castor Oil'), [
      'water',
      '1,2-hexanediol',
      'peg-40 hydrogenated castor oil',
    ]);
  });

  it('a heading in another language, or any word ending in a colon that is not an ingredient, is no ingredient', () => {
    for (const heading of [
      'Inhaltsstoffe:',
      'Bestandteile:',
      'Ingredientes:',
      'Ingredienti:',
      'Składniki:',
    ]) {
      assert.deepEqual(names(`${heading} Aqua, Glycerin, Alcohol, Parfum`), [
        'water',
        'glycerin',
        'alcohol',
        'fragrance',
      ]);
    }
    assert.deepEqual(names('Aqua, Glycerin, Parfum. Contains: Linalool, Limonene.'), [
      'water',
      'glycerin',
      'fragrance',
      'linalool',
      'limonene',
    ]);
  });

  it('a may-contain section in other languages marks its colours, and a spaced slash alone separates', () => {
    for (const marker of [
      'Kann enthalten:',
      'Puede contener:',
      'Può contenere:',
      'Pode conter:',
      'Kan bevatten:',
    ]) {
      const reading = readInci(`Dimethicone, Silica. ${marker} CI 77491, CI 77891, Carmine`);
      assert.deepEqual(
        reading.ingredients.map((ingredient) => [ingredient.name, ingredient.mayContain]),
        [
          ['dimethicone', false],
          ['silica', false],
          ['iron oxides', true],
          ['titanium dioxide', true],
          ['carmine', true],
        ],
        marker,
      );
    }
    const slashed = 'Water / Glycerin / Salicylic Acid / Alcohol Denat.';
    assert.deepEqual(names(slashed), ['water', 'glycerin', 'salicylic acid', 'alcohol denat']);
    assert.deepEqual(flags(slashed), ['drying_alcohol']);
    assert.deepEqual(names('Aqua / Water / Eau, Caprylic / Capric Triglyceride'), [
      'water',
      'caprylic/capric triglyceride',
    ]);
  });

  it('sentences about the list or the product are no ingredients', () => {
    assert.deepEqual(names('INGREDIENTS AQUA, GLYCERIN, ALCOHOL'), ['water', 'glycerin', 'alcohol']);
    assert.equal(
      readInci('This toner contains glycolic acid, aloe vera and witch hazel.').status,
      'not_a_list',
    );
    assert.deepEqual(names('Water, Glycerin\nIngredients may vary, please refer to the packaging.'), [
      'water',
      'glycerin',
    ]);
  });

  it('a drug-facts panel gives its actives and inactives, not its purposes, uses or warnings', () => {
    const panel =
      'Drug Facts\nActive ingredients Purpose\nZinc Oxide 18.9% ........ Sunscreen\n' +
      'Inactive ingredients: Water, Caprylyl Caprylate, Glycerin, Fragrance';
    assert.deepEqual(names(panel), ['zinc oxide', 'water', 'caprylyl caprylate', 'glycerin', 'fragrance']);
    assert.equal(analyseFormula(panel, true).sunProtects, true);
    const acne =
      'Active ingredient: Salicylic Acid 2% Purpose: Acne treatment. Uses: for the treatment of acne. ' +
      'Warnings: For external use only. Inactive ingredients: Water, Sodium Laureth Sulfate, Fragrance';
    assert.deepEqual(names(acne), ['salicylic acid', 'water', 'sodium laureth sulfate', 'fragrance']);
    assert.deepEqual(
      names('Active Ingredient: Petrolatum 41% Purpose: Skin protectant. Inactive: Mineral Oil'),
      ['petrolatum', 'mineral oil'],
    );
  });

  it('a name followed by a note in words keeps the name and its flags', () => {
    const text =
      'Aqua, Alcohol (from sugar cane), Squalane (from olives), Niacinamide (without parfum), ' +
      'Parfum (fragrance free of allergens), Salicylic Acid (ca. 2%)';
    assert.deepEqual(names(text), [
      'water',
      'alcohol',
      'squalane',
      'niacinamide',
      'fragrance',
      'salicylic acid',
    ]);
    const formula = analyseFormula(text, false);
    assert.deepEqual(formula.flags, ['fragrance', 'drying_alcohol']);
    assert.ok(formula.keyIngredients.includes('Niacinamide'));
    assert.ok(formula.keyIngredients.includes('Salicylic Acid'), formula.keyIngredients.join());
    assert.deepEqual(names('Ingredients - Aqua, Salicylic Acid 1-2%, Zinc PCA (0.5 - 1 %)'), [
      'water',
      'salicylic acid',
      'zinc pca',
    ]);
    // A whole entry of words is still shop copy.
    assert.equal(readInci('Water, Glycerin, Free from parabens (and from sulfates)').ingredients.length, 2);
  });

  it('accented and translated names of the flagged ingredients are those ingredients', () => {
    const french = 'Ingrédients : Eau, Glycérine, Alcool Dénaturé, Parfum, Niacinamide';
    assert.deepEqual(names(french), ['water', 'glycerin', 'alcohol denat', 'fragrance', 'niacinamide']);
    assert.deepEqual(flags(french), ['fragrance', 'drying_alcohol']);
    const german = 'Inhaltsstoffe: Wasser, Glyzerin, Alkohol, Parfüm, Duftstoffe';
    assert.deepEqual(names(german), ['water', 'glycerin', 'alcohol', 'fragrance']);
    assert.deepEqual(flags(german), ['fragrance', 'drying_alcohol']);
    assert.deepEqual(names('Agua, Glicerina, Alcohol Denaturado, Profumo'), [
      'water',
      'glycerin',
      'alcohol denat',
      'fragrance',
    ]);
  });

  it('a free-from claim names what the product does not hold: no ingredient and no flag from it', () => {
    for (const claim of [
      'Free from: Fragrance, Alcohol, Parabens.',
      'Formulated without fragrance, drying alcohol and sulfates.',
      'Does not contain fragrance or alcohol.',
      'Sans parfum, sans alcool.',
      '0% Alcohol, 0% Fragrance',
      'Free of:\nFragrance, Essential Oils, Alcohol Denat.',
    ]) {
      for (const text of [
        `Aqua, Glycerin, Niacinamide. ${claim}`,
        `${claim}\nIngredients: Aqua, Glycerin, Niacinamide`,
      ]) {
        const reading = readInci(text);
        assert.deepEqual(
          reading.ingredients.map((ingredient) => ingredient.name),
          ['water', 'glycerin', 'niacinamide'],
          text,
        );
        assert.match(reading.note ?? '', /left out text that is not an ingredient/, text);
        assert.deepEqual(flags(text), [], text);
      }
    }
    // A claim that is one entry of the list is that entry; with a colon it opens a list of its own.
    assert.deepEqual(names('Aqua, Without Perfume, Niacinamide, Free from: Alcohol, Parfum.'), [
      'water',
      'niacinamide',
    ]);
    // A decimal percentage is no 0% claim; a note in brackets after one name is that name's.
    assert.deepEqual(names('Zinc Oxide 10.0% Octinoxate 7,0% Water, Glycerin'), [
      'zinc oxide',
      'octinoxate',
      'water',
      'glycerin',
    ]);
    assert.deepEqual(names('Aqua, Niacinamide (without parfum), Glycerin, Alcohol'), [
      'water',
      'niacinamide',
      'glycerin',
      'alcohol',
    ]);
  });

  it('key ingredients alone are not the list; beside the list they are left out', () => {
    for (const text of [
      'Key Ingredients: Niacinamide, Zinc PCA, Hyaluronic Acid',
      'Hero ingredients - Retinol, Squalane',
    ]) {
      const reading = readInci(text);
      assert.equal(reading.status, 'not_a_list', text);
      assert.equal(reading.note, 'it names only key ingredients, not the full list');
      assert.deepEqual(analyseFormula(text, false).flags, []);
    }
    const both =
      'Key ingredients: Niacinamide 10%, Zinc 1%. Ingredients: Aqua, Niacinamide, Zinc PCA, Parfum';
    assert.deepEqual(names(both), ['water', 'niacinamide', 'zinc pca', 'fragrance']);
    assert.deepEqual(names('Aqua, Niacinamide, Zinc PCA, Parfum\nKey Ingredients: Niacinamide, Zinc'), [
      'water',
      'niacinamide',
      'zinc pca',
      'fragrance',
    ]);
  });

  it('recommend_products keeps these products out of free_from and ranks their actives', () => {
    const lists: Record<string, string> = {
      plain: 'Water, Salicylic Acid 2%, Glycerin, Xanthan Gum',
      noted: 'Aqua, Alcohol (from sugar cane), Salicylic Acid, Glycerin',
      wide: 'Water，Alcohol Denat.，Salicylic Acid，Glycerin',
      dashed: 'Water - Alcohol Denat. - Salicylic Acid - Glycerin',
      french: 'Eau, Alcool, Salicylic Acid, Glycérine',
      branded: 'Aqua, Salicylic Acid™, Niacinamide®, Zinc PCA, Glycerin, Parfum（Fragrance）',
    };
    const index = new CatalogIndex(
      Object.entries(lists).map(([id, ingredients]) => deriveProduct(rawProduct(id, { ingredients }))),
    );
    const concerns: Concern[] = [
      { name: 'acne', severity: 0.8 },
      { name: 'oiliness', severity: 0.5 },
    ];
    const ranked = (freeFrom: string[]) =>
      index
        .recommend(concerns, null, create(ProductFilterSchema, { freeFrom }), 10)
        .best.map(({ entry, score }) => [entry.product.product_id, score] as const);
    assert.deepEqual(
      ranked(['alcohol']).map(([id]) => id),
      ['branded', 'plain'],
    );
    assert.deepEqual(
      ranked(['fragrance']).map(([id]) => id),
      ['dashed', 'french', 'noted', 'plain', 'wide'],
    );
    // Every product treats acne with salicylic acid: each scores as the plain list does, or better.
    const all = new Map(ranked([]));
    for (const id of Object.keys(lists))
      assert.ok((all.get(id) ?? 0) >= all.get('plain')!, `${id}: ${all.get(id)}`);
  });
});
