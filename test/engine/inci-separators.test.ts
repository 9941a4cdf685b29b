/**
 * Free-from attributes on lists typed with any separator. Labels and shop pages separate entries with
 * whatever their keyboard or layout gives: Japanese labels with `・`, shop pages with bullets, squares,
 * diamonds, arrows or emoji, spreadsheets with tabs, copy-pasted lists with dashes and pluses. A separator
 * the parser does not split on glues two names into one unknown entry, which raises no flag: the product
 * would then be "free from" the fragrance or alcohol it lists. Whatever the separator, a product listing
 * what a free-from filter excludes must never pass it (DESIGN: unknown, never "free from").
 * Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { type Attributes, deriveProduct } from '../../services/catalog/derive.ts';
import { readInci } from '../../services/catalog/inci/parse.ts';
import { rawProduct } from '../support/raw-product.ts';

/** Separators as labels and shop pages print them, spaced or not. */
const SEPARATORS = [
  '・', // katakana middle dot (Japanese labels)
  '･', // half-width katakana middle dot
  '·',
  '‧',
  '∙',
  '⋅',
  '•',
  '‣',
  '⁃',
  '■',
  '□',
  '◆',
  '◇',
  '▪',
  '●',
  '○',
  '◦',
  '★',
  '♦',
  '❖',
  '✿',
  '►',
  '→',
  '¦',
  '‖',
  '|',
  '⦁',
  '🌿',
  '،', // Arabic comma
];
/** Separators that separate only with spaces around them, or only glued (dashes between words). */
const SPACED_ONLY = [' ‐ ', ' ‑ ', ' + ', ' * ', ' − ', ' ～ ', ' ⸺ '];
const GLUED_ONLY = ['—', '―', '\t', ' \t '];
/** Glued marks that also sit inside names: they need not split, but must never hide a name. */
const AMBIGUOUS = ['+', '*', '‐', '&', '/', '-'];

/** What a free-from filter excludes, spelled as labels print it, and the attribute it rests on. */
const EXCLUDED: readonly [string, keyof Attributes, string][] = [
  ['Parfum', 'fragrance_free', 'fragrance'],
  ['Fragrance', 'fragrance_free', 'fragrance'],
  ['Aroma', 'fragrance_free', 'fragrance'],
  ['Parfüm', 'fragrance_free', 'fragrance'],
  ['Linalool', 'fragrance_free', 'fragrance'],
  ['Limonene', 'fragrance_free', 'fragrance'],
  ['Lavandula Angustifolia Oil', 'fragrance_free', 'fragrance'],
  ['Alcohol Denat.', 'alcohol_free', 'alcohol'],
  ['Alcohol', 'alcohol_free', 'alcohol'],
  ['SD Alcohol 40-B', 'alcohol_free', 'alcohol'],
  ['Isopropyl Alcohol', 'alcohol_free', 'alcohol'],
  ['Alcool', 'alcohol_free', 'alcohol'],
  ['Polysorbate 20', 'fungal_acne_safe', 'fungal_acne_triggers'],
  ['Isopropyl Myristate', 'fungal_acne_safe', 'fungal_acne_triggers'],
];

/** The shapes a label takes around its separator: every entry, one pair of entries, first and last. */
function shapes(sep: string, excluded: string): string[] {
  return [
    ['Aqua', 'Glycerin', excluded, 'Niacinamide', 'Panthenol'].join(sep),
    `Aqua, Glycerin, Niacinamide${sep}${excluded}, Panthenol`,
    `Aqua, Glycerin, ${excluded}${sep}Niacinamide, Panthenol`,
    [excluded, 'Aqua', 'Butylene Glycol'].join(sep),
    `Water (Aqua)${sep}Glycerin${sep}Sodium Hyaluronate${sep}${excluded}`,
  ];
}

const spaced = (sep: string) => [sep, ` ${sep} `];
const ALL = [...SEPARATORS.flatMap(spaced), ...SPACED_ONLY, ...GLUED_ONLY, ...AMBIGUOUS.flatMap(spaced)];

describe('INCI lists with any separator', () => {
  it('never call a product free from what its list names, whatever separates the entries', () => {
    let cases = 0;
    for (const sep of ALL) {
      for (const [excluded, attribute] of EXCLUDED) {
        for (const ingredients of shapes(sep, excluded)) {
          const product = deriveProduct(rawProduct('p', { ingredients }));
          assert.notEqual(
            product.attributes[attribute],
            true,
            `${attribute} of ${JSON.stringify(ingredients)}`,
          );
          cases++;
        }
      }
    }
    assert.equal(cases, ALL.length * EXCLUDED.length * 5);
  });

  it('a separator known by its Unicode class splits the list into the names it holds', () => {
    const expected = ['water', 'glycerin', 'alcohol denat', 'fragrance', 'niacinamide'];
    for (const sep of [...SEPARATORS.flatMap(spaced), ...SPACED_ONLY, ...GLUED_ONLY]) {
      const text = ['Aqua', 'Glycerin', 'Alcohol Denat.', 'Parfum', 'Niacinamide'].join(sep);
      const reading = readInci(text);
      assert.deepEqual(
        reading.ingredients.map((ingredient) => ingredient.name),
        expected,
        JSON.stringify(text),
      );
      const { attributes } = deriveProduct(rawProduct('p', { ingredients: text }));
      assert.equal(attributes.fragrance_free, false, JSON.stringify(text));
      assert.equal(attributes.alcohol_free, false, JSON.stringify(text));
    }
  });

  it('names that hold dashes, pluses, slashes and marks stay whole', () => {
    const text =
      'Aqua, C12–15 Alkyl Benzoate, Ceteareth–20, 1,2-Hexanediol, Caprylic⁄Capric Triglyceride, ' +
      'Bis-PEG-18 Methyl Ether Dimethyl Silane, Iron Oxides (CI 77491, CI 77492), Rosa Damascena Flower Oil*';
    assert.deepEqual(
      readInci(text).ingredients.map((ingredient) => ingredient.label),
      [
        'Aqua',
        'C12–15 Alkyl Benzoate',
        'Ceteareth–20',
        '1,2-Hexanediol',
        'Caprylic⁄Capric Triglyceride',
        'Bis-PEG-18 Methyl Ether Dimethyl Silane',
        'Iron Oxides (CI 77491, CI 77492)',
        'Rosa Damascena Flower Oil',
      ],
    );
    const mayContain = readInci('Aqua, Glycerin, Mica. May contain (+/-): CI 77491, CI 77499');
    assert.deepEqual(
      mayContain.ingredients.map((ingredient) => [ingredient.name, ingredient.mayContain]),
      [
        ['water', false],
        ['glycerin', false],
        ['mica', false],
        ['iron oxides', true],
      ],
    );
  });

  it('a Japanese label separated with ・ lists its fragrance and alcohol', () => {
    const text = '成分：Water・Glycerin・BG・Alcohol Denat.・Parfum・Niacinamide';
    const product = deriveProduct(rawProduct('jp', { ingredients: text }));
    assert.deepEqual(product.flags, ['fragrance', 'drying_alcohol']);
    assert.equal(product.attributes.fragrance_free, false);
    assert.equal(product.attributes.alcohol_free, false);
  });

  it('an entry of names run together leaves the free-from attributes unknown, and says why', () => {
    for (const ingredients of [
      'Aqua, Glycerin Parfum, Niacinamide',
      'Aqua, Niacinamide Alcohol Denat, Glycerin',
      'Aqua, Extrait De Rose Et Huile De Parfum Naturel Bio, Glycerin',
      'Aqua, Butylene Glycol, Panthenol Sodium Hyaluronate, Glycerin',
    ]) {
      const product = deriveProduct(rawProduct('p', { ingredients }));
      assert.equal(product.ingredients_status, 'listed', ingredients);
      for (const attribute of ['fragrance_free', 'alcohol_free', 'fungal_acne_safe'] as const)
        assert.notEqual(product.attributes[attribute], true, `${attribute} of ${ingredients}`);
      assert.match(product.ingredients_note ?? '', /run together: .*unknown/, ingredients);
    }
  });

  it('a term glued to its neighbours by marks that sit in names leaves its attribute unknown', () => {
    const product = deriveProduct(
      rawProduct('p', { ingredients: 'Aqua+Glycerin+Alcohol Denat.+Parfum+Niacinamide' }),
    );
    assert.equal(product.attributes.fragrance_free, null);
    assert.equal(product.attributes.alcohol_free, null);
    assert.equal(product.attributes.fungal_acne_safe, true);
    assert.match(product.ingredients_note ?? '', /fragrance_free unknown: the list names "Parfum"/);
    assert.match(product.ingredients_note ?? '', /alcohol_free unknown: the list names "Alcohol Denat"/);
  });

  it('names that end in a term, and free-from claims, leave a well-read list free', () => {
    const product = deriveProduct(
      rawProduct('p', {
        ingredients:
          'Aqua, Cetearyl Alcohol, Benzyl Alcohol, Aminomethyl Propanol, Butyrospermum Parkii (Shea) Butter, ' +
          'Caprylic/Capric Triglyceride, Sodium Hyaluronate Crosspolymer. Free from fragrance and alcohol.',
      }),
    );
    assert.deepEqual(
      [product.attributes.fragrance_free, product.attributes.alcohol_free],
      [true, true],
      product.ingredients_note ?? '',
    );
  });

  it('recommend_products keeps every such product out of free_from', () => {
    const products = ALL.flatMap((sep, i) =>
      EXCLUDED.map(([excluded], j) =>
        deriveProduct(
          rawProduct(`s${i}-${j}`, {
            ingredients: `Aqua, Salicylic Acid, Niacinamide${sep}${excluded}, Glycerin`,
          }),
        ),
      ),
    );
    const clean = deriveProduct(
      rawProduct('clean', { ingredients: 'Aqua, Salicylic Acid, Niacinamide, Glycerin' }),
    );
    const index = new CatalogIndex([...products, clean]);
    const concerns = [{ name: 'acne' as const, severity: 0.8 }];
    const found = (freeFrom: string[]) =>
      index
        .recommend(concerns, null, create(ProductFilterSchema, { freeFrom }), 1000)
        .best.map(({ entry }) => entry.product.product_id);
    for (const [filter, ids] of [
      [['fragrance'], EXCLUDED.filter(([, a]) => a === 'fragrance_free')],
      [['alcohol'], EXCLUDED.filter(([, a]) => a === 'alcohol_free')],
      [['fungal_acne_triggers'], EXCLUDED.filter(([, a]) => a === 'fungal_acne_safe')],
    ] as const) {
      const passing = new Set(found([...filter]));
      assert.ok(passing.has('clean'), filter[0]);
      for (const [excluded] of ids) {
        const j = EXCLUDED.findIndex(([name]) => name === excluded);
        for (let i = 0; i < ALL.length; i++)
          assert.ok(!passing.has(`s${i}-${j}`), `${filter[0]}: ${JSON.stringify(ALL[i])} ${excluded}`);
      }
    }
  });
});
