import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import type { SkinType } from '../../services/catalog/derive.ts';
import { createDeriver } from '../../services/catalog/formula-memo.ts';
import { prepareScan, scorePrepared } from '../../services/match/engine/index.ts';
import { PRODUCT_TYPES } from '../../services/match/match-input.ts';
import { MEASURES } from '../../services/shared/measures.ts';
import { generateCatalog } from '../bench/generated-catalog.ts';

const derive = createDeriver();
// The demo catalog's 320 formulas, twice over under other ids and types: many products share a scoring
// signature, and many tie.
const catalog = generateCatalog(640).map(derive);

const concernsArb = fc.array(
  fc.record({
    name: fc.constantFrom(...MEASURES),
    severity: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  { maxLength: 6 },
);
const skinTypeArb = fc.constantFrom<SkinType | null>(null, 'dry', 'oily', 'combination', 'normal');

describe('the catalog index, scoring each signature once', () => {
  it('scores fewer signatures than products', () => {
    const index = new CatalogIndex(catalog);
    assert.ok(index.signatureCount < catalog.length / 2, String(index.signatureCount));
  });

  it('ranks exactly as scoring every product on its own: score first, then product_id, each product once; filters only narrow', () => {
    fc.assert(
      fc.property(
        concernsArb,
        skinTypeArb,
        fc.integer({ min: 0, max: catalog.length - 1 }),
        fc.integer({ min: 1, max: 400 }),
        fc.option(fc.constantFrom(...PRODUCT_TYPES), { nil: undefined }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 5 }),
        (concerns, skinType, start, length, productType, limit, every) => {
          const slice = catalog.slice(start, start + length);
          // Every few products, the same product in another size, as retailers list it (an id after it, so
          // the original wins the tie): it must never take a second place.
          const sizes = slice
            .filter((_, i) => i % every === 0)
            .map((p) => ({ ...p, product_id: `${p.product_id}-200ml`, name: `${p.name} 200 ml` }));
          const index = new CatalogIndex([...slice, ...sizes]);
          const filter = productType ? create(ProductFilterSchema, { productType }) : undefined;
          const { best, candidates } = index.recommend(concerns, skinType, filter, limit);

          const scan = prepareScan(concerns, skinType);
          const matching = index.entries.filter(
            (entry) => !productType || entry.product.product_type === productType,
          );
          const expected = matching
            .filter((entry) => !entry.product.product_id.endsWith('-200ml'))
            .map((entry) => ({ id: entry.product.product_id, score: scorePrepared(scan, entry.engine) }))
            .sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || (a.id < b.id ? -1 : 1));
          assert.equal(candidates, matching.length);
          assert.deepEqual(
            best.map(({ entry, score }) => ({ id: entry.product.product_id, score })),
            expected.slice(0, limit),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the catalog index, filtering text as retailers spell it', () => {
  const concerns = [{ name: 'acne' as const, severity: 0.5 }];
  /** The ids a filter keeps from `products`, derived from `base` with the given fields. */
  const kept = (
    products: readonly object[],
    filter: Parameters<typeof create<typeof ProductFilterSchema>>[1],
  ) => {
    const index = new CatalogIndex(
      // Each its own product (another name): the same product in several sizes would fill one place.
      products.map((fields, i) =>
        derive({ ...catalog[0]!, product_id: `p-${i}`, name: `Product ${i}`, ...fields }),
      ),
    );
    return index
      .recommend(concerns, null, create(ProductFilterSchema, filter), 100)
      .best.map(({ entry }) => entry.product.product_id)
      .sort();
  };

  it('a product type written with spaces, hyphens or capitals is the enumeration value', () => {
    for (const type of PRODUCT_TYPES) {
      const words = type.split('_');
      const spellings = [
        type,
        type.toUpperCase(),
        words.join(' '),
        words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' '),
        words.join('-'),
        ` ${words.join('  ')} `,
      ];
      const others = PRODUCT_TYPES.filter((t) => t !== type).map((t) => ({
        product_type: t.replace('_', ' '),
      }));
      const ids = kept([...spellings.map((product_type) => ({ product_type })), ...others], {
        productType: type,
      });
      assert.deepEqual(ids, spellings.map((_, i) => `p-${i}`).sort(), type);
    }
  });

  it('vegan and cruelty_free narrow only when true: false filters nothing', () => {
    const products = [true, false, null].flatMap((vegan) =>
      [true, false, null].map((cruelty_free) => ({ vegan, cruelty_free })),
    );
    const all = products.map((_, i) => `p-${i}`).sort();
    assert.deepEqual(kept(products, { vegan: false, crueltyFree: false }), all);
    assert.deepEqual(kept(products, { vegan: true }), ['p-0', 'p-1', 'p-2']);
    assert.deepEqual(kept(products, { vegan: true, crueltyFree: true }), ['p-0']);
    assert.deepEqual(kept(products, { vegan: false, crueltyFree: true }), ['p-0', 'p-3', 'p-6']);
  });

  it('brand and country match however their accents, width, case and spaces were encoded', () => {
    const variants = (text: string) => [
      text.normalize('NFC'),
      text.normalize('NFD'),
      text.toUpperCase(),
      ` ${text.replace(' ', '   ')} `,
      text.replace(/[A-Za-z]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)), // full-width
    ];
    for (const brand of ['L’Oréal Paris', 'Crème Étoile', 'Dr Ürsel']) {
      const products = [...variants(brand).map((b) => ({ brand: b })), { brand: 'Another Brand' }];
      for (const asked of variants(brand)) {
        assert.deepEqual(kept(products, { brand: asked }), ['p-0', 'p-1', 'p-2', 'p-3', 'p-4'], asked);
      }
    }
    for (const country of ['Côte d’Ivoire', 'Türkiye']) {
      const products = [...variants(country).map((c) => ({ country: c })), { country: 'GB' }];
      assert.deepEqual(kept(products, { country: country.normalize('NFD') }), [
        'p-0',
        'p-1',
        'p-2',
        'p-3',
        'p-4',
      ]);
    }
  });
  it('text search compares query and name, brand and ingredients the same way as the filters', () => {
    const variants = (text: string) => [
      text.normalize('NFC'),
      text.normalize('NFD'),
      text.toUpperCase(),
      ` ${text.replace(' ', ' \u00a0 ')} `,
      text.replace(/[A-Za-z]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)), // full-width
    ];
    const found = (products: readonly object[], query: string) =>
      new CatalogIndex(
        // Each its own product (another name): the same product in several sizes would fill one place.
        products.map((fields, i) =>
          derive({ ...catalog[0]!, product_id: `p-${i}`, name: `Product ${i}`, ...fields }),
        ),
      )
        .search(query, undefined, undefined, 100)
        .map((entry) => entry.product.product_id);
    for (const [field, text, phrase] of [
      ['name', 'Crème Étoile Sérum', 'étoile sérum'],
      ['brand', 'L’Oréal Paris', 'L’Oréal'],
      ['ingredients', 'Aqua, Centella Asiática Extract, Glycerin', 'centella asiática'],
    ] as const) {
      const products = [...variants(text).map((value) => ({ [field]: value })), { [field]: 'Other Thing' }];
      for (const asked of variants(phrase)) {
        assert.deepEqual(found(products, asked), ['p-0', 'p-1', 'p-2', 'p-3', 'p-4'], `${field} ${asked}`);
      }
    }
  });
});
