import assert from 'node:assert/strict';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { KB_VERSION } from '../../services/catalog/knowledge/knowledge.ts';
import { rawProduct } from '../support/raw-product.ts';

const raw = (fields: Partial<RawProduct>): RawProduct =>
  rawProduct('p-1', { brand: 'Test Brand', country: 'FR', ingredients: 'Water, Glycerin', ...fields });

describe('product derivation', () => {
  it('says nothing about flags or targets without an ingredient list', () => {
    const derived = deriveProduct(raw({ ingredients: '#NAME?', vegan: true, cruelty_free: false }));
    assert.deepEqual(derived.attributes, {
      vegan: true,
      cruelty_free: false,
      fragrance_free: null,
      alcohol_free: null,
      fungal_acne_safe: null,
    });
    assert.deepEqual(derived.targets, []);
    assert.deepEqual(derived.key_ingredients, []);
    assert.deepEqual(derived.skin_types, []);
    assert.equal(derived.skin_types_source, 'unknown');
  });

  it('keeps the source fields and records the knowledge-base version', () => {
    const derived = deriveProduct(raw({ demo: true }));
    assert.equal(derived.product_id, 'p-1');
    assert.equal(derived.brand, 'Test Brand');
    assert.equal(derived.ingredients, 'Water, Glycerin');
    assert.equal(derived.demo, true);
    assert.equal(derived.kb_version, KB_VERSION);
    const withExtra = { ...raw({}), internal_cost: 3 } as RawProduct;
    assert.equal('internal_cost' in deriveProduct(withExtra), false);
    assert.equal('demo' in deriveProduct(raw({})), false);
  });

  it('reads declared skin types, expanding "all" and ignoring unknown words', () => {
    const derived = deriveProduct(raw({ skin_types: ['Oily', ' combination ', 'Sensitive', 'teen'] }));
    assert.deepEqual(derived.skin_types, ['oily', 'combination', 'sensitive']);
    assert.equal(derived.skin_types_source, 'declared');
    assert.deepEqual(deriveProduct(raw({ skin_types: ['All'] })).skin_types, [
      'dry',
      'oily',
      'combination',
      'normal',
    ]);
  });

  it('derives skin types from the formula when the source declares none', () => {
    const rich = deriveProduct(raw({ ingredients: 'Water, Petrolatum, Glycerin' }));
    assert.deepEqual(rich.skin_types, ['dry', 'normal']);
    assert.equal(rich.skin_types_source, 'derived');
    const occlusiveLast = deriveProduct(
      raw({ ingredients: 'Water, Glycerin, Niacinamide, Xanthan Gum, Petrolatum' }),
    );
    assert.deepEqual(occlusiveLast.skin_types, ['dry', 'normal']);
    const facialOil = deriveProduct(raw({ ingredients: 'Squalane, Rosa Canina Fruit Oil, Tocopherol' }));
    assert.deepEqual(facialOil.skin_types, ['dry', 'normal']);
    const dropOfOil = deriveProduct(
      raw({ ingredients: 'Water, Glycerin, Niacinamide, Rosa Canina Fruit Oil' }),
    );
    assert.deepEqual(dropOfOil.skin_types, ['dry', 'oily', 'combination', 'normal']);
  });

  it('derives vegan=false from animal-derived ingredients, also over a stated vegan: true', () => {
    assert.equal(deriveProduct(raw({ ingredients: 'Water, Cera Alba' })).attributes.vegan, false);
    assert.equal(
      deriveProduct(raw({ ingredients: 'Water, Cera Alba', vegan: true })).attributes.vegan,
      false,
    );
    assert.equal(deriveProduct(raw({ ingredients: 'Water, Glycerin', vegan: true })).attributes.vegan, true);
    assert.equal(
      deriveProduct(raw({ ingredients: 'Water, Glycerin', vegan: false })).attributes.vegan,
      false,
    );
    assert.equal(deriveProduct(raw({ ingredients: 'Water, Glycerin' })).attributes.vegan, null);
    assert.equal(
      deriveProduct(raw({ ingredients: 'Talc, Mica. May contain: Carmine' })).attributes.vegan,
      false,
    );
  });

  it('counts UV filters only in sun-protection products', () => {
    const ingredients = 'Water, Zinc Oxide, Glycerin';
    assert.deepEqual(deriveProduct(raw({ ingredients, product_type: 'moisturizer' })).targets, []);
    assert.deepEqual(deriveProduct(raw({ ingredients, product_type: 'sunscreen' })).targets, [
      'dark_spots',
      'wrinkles',
    ]);
    assert.deepEqual(deriveProduct(raw({ ingredients, name: 'Day Fluid SPF 30' })).key_ingredients, [
      'Zinc Oxide',
    ]);
  });

  it('takes a product the sunscreen filter finds for a sun-protection product, typed or not', () => {
    const ingredients = 'Water, Zinc Oxide, Glycerin';
    const sun = (fields: Partial<RawProduct>) =>
      deriveProduct(raw({ ingredients, ...fields })).sun_protection;
    // The type names no kind, the name does; a French type; a type naming a sunscreen without the word sun.
    assert.equal(sun({ product_type: null, name: 'Mineral Sunscreen' }), true);
    assert.equal(sun({ product_type: 'Skincare', name: 'Sheer Sun Fluid' }), true);
    assert.equal(sun({ product_type: 'Écran solaire', name: 'Fluide Invisible' }), true);
    assert.equal(sun({ product_type: 'UV Protection', name: 'Airy Fluid' }), true);
    // A type naming another kind is kept over the name; a lip balm is not a face sunscreen without an SPF.
    assert.equal(sun({ product_type: 'Moisturiser', name: 'Sunset Glow Cream' }), false);
    assert.equal(sun({ product_type: 'Lip Balm', name: 'Sun Kissed Balm' }), false);
  });

  it('ignores may-contain ingredients for targets', () => {
    assert.deepEqual(deriveProduct(raw({ ingredients: 'Water. May contain: Salicylic Acid' })).targets, []);
  });

  it('counts an active once however it is spelled', () => {
    const derived = deriveProduct(raw({ ingredients: 'Water, Niacinamide, Nicotinamide, Vitamin B3' }));
    assert.equal(derived.evidence.acne, 2);
  });

  it('lists at most five key ingredients, in list order, in title case when printed in capitals', () => {
    const derived = deriveProduct(
      raw({
        ingredients: 'AQUA, SALICYLIC ACID, NIACINAMIDE, ZINC PCA, KAOLIN, BENTONITE, GLYCOLIC ACID, RETINOL',
      }),
    );
    assert.deepEqual(derived.key_ingredients, [
      'Salicylic Acid',
      'Niacinamide',
      'Zinc Pca',
      'Kaolin',
      'Bentonite',
    ]);
    assert.equal(derived.targets.length, 6);
    // Evidence: pores 11, oiliness 11, acne 9, texture 8, uneven_tone 6, dark_spots 5 (ties with wrinkles, earlier measure).
    assert.deepEqual(derived.targets, ['pores', 'oiliness', 'acne', 'texture', 'uneven_tone', 'dark_spots']);
  });

  it('sets the caution flags in a fixed order', () => {
    const derived = deriveProduct(
      raw({ ingredients: 'Mineral Oil, Alcohol Denat., Isopropyl Myristate, Polysorbate 20, Parfum' }),
    );
    assert.deepEqual(derived.flags, [
      'fragrance',
      'drying_alcohol',
      'fungal_acne_trigger',
      'pore_clogging',
      'rich_texture',
    ]);
  });

  describe('retailer fields that are not ingredient lists: every flag unknown, never free-from', () => {
    for (const [shape, ingredients] of [
      ['a placeholder', 'Visit the Northwind Skin boutique'],
      ['a short placeholder', 'No Info'],
      ['marketing bullets', '• Oil-free • Hydrates for 24 hours • Free from synthetic fragrance'],
      ['words without recoverable separators', 'Lorem ipsum dolor sit amet consectetur adipiscing elit'],
    ]) {
      it(shape!, () => {
        const derived = deriveProduct(raw({ ingredients, vegan: null }));
        assert.equal(derived.ingredients_status, 'not_a_list');
        assert.ok((derived.ingredients_note ?? '').length > 0);
        assert.deepEqual(derived.attributes, {
          vegan: null,
          cruelty_free: null,
          fragrance_free: null,
          alcohol_free: null,
          fungal_acne_safe: null,
        });
        assert.deepEqual(derived.flags, []);
        assert.deepEqual(derived.skin_types, []);
        assert.equal(derived.skin_types_source, 'unknown');
      });
    }
  });

  describe('fragrance_free', () => {
    const fragranceFree = (ingredients: string) =>
      deriveProduct(raw({ ingredients })).attributes.fragrance_free;
    it('benzyl alcohol alone is a preservative: still fragrance-free', () => {
      assert.equal(fragranceFree('Water, Glycerin, Caffeine, Benzyl Alcohol, Phenoxyethanol'), true);
    });
    it('benzyl alcohol with a declared fragrance or another allergen: fragranced', () => {
      assert.equal(fragranceFree('Water, Glycerin, Benzyl Alcohol, Parfum'), false);
      assert.equal(fragranceFree('Water, Glycerin, Benzyl Alcohol, Linalool'), false);
    });
    it('a fragrant essential oil by botanical name, by English name, or hidden by a footnote mark', () => {
      assert.equal(fragranceFree('Water, Pogostemon Cablin Oil'), false);
      assert.equal(fragranceFree('Water, Glycerin, Peppermint Oil'), false);
      assert.equal(fragranceFree('Water, Glycerin, Fragrance+'), false);
    });
    it('a seed oil of a fragrant plant is not fragrance', () => {
      assert.equal(fragranceFree('Squalane, Santalum Spicatum Seed Oil'), true);
    });
  });

  it('a drying alcohol hidden by a lost separator or spelled Methyl Alcohol', () => {
    const alcoholFree = (ingredients: string) => deriveProduct(raw({ ingredients })).attributes.alcohol_free;
    assert.equal(alcoholFree('Octisalate 4.5%Alcohol Denat., Water'), false);
    assert.equal(alcoholFree('Water, Alcohol .Citric Acid'), false);
    assert.equal(alcoholFree('Water, Methyl Alcohol, Glycerin'), false);
  });
});

describe('declared skin types as retailers write them', () => {
  const declared = (values: string[]) => deriveProduct({ ...raw({}), skin_types: values }).skin_types;
  const all = ['dry', 'oily', 'combination', 'normal'];
  // Each type, and pairs of them, in the spellings exports use; the expected types in the fixed order.
  const types = ['dry', 'oily', 'combination', 'normal', 'sensitive'] as const;
  const single = (t: string) => [
    t,
    `${t[0]!.toUpperCase()}${t.slice(1)} Skin`,
    `${t.toUpperCase()} SKIN`,
    `skin type: ${t}`,
    `for ${t} skin`,
    `${t}-skin`,
  ];
  const joins = [', ', '/', ' & ', ' and ', ' to ', ' | ', ' + '];

  it('one type, with the words around it', () => {
    for (const t of types)
      for (const spelling of single(t)) assert.deepEqual(declared([spelling]), [t], spelling);
  });
  it('several types in one value', () => {
    for (const a of types) {
      for (const b of types) {
        if (a === b) continue;
        const expected = types.filter((t) => t === a || t === b);
        for (const join of joins) {
          const value = `${single(a)[1]}${join}${b}`;
          assert.deepEqual(declared([value]), expected, value);
        }
      }
    }
  });
  it('every skin type, however it is spelt', () => {
    for (const value of [
      'all',
      'All Skin Types',
      'ALL-SKIN-TYPES',
      'all skin type',
      'All  Skin  Types',
      'for all skin types',
    ]) {
      const product = deriveProduct({ ...raw({}), skin_types: [value] });
      assert.deepEqual([product.skin_types, product.skin_types_source], [all, 'declared'], value);
    }
  });
  it('a value with any other word declares nothing, so the formula decides', () => {
    for (const value of ['not for dry skin', 'teen skin', 'dry-ish']) {
      const product = deriveProduct({ ...raw({}), skin_types: [value] });
      assert.equal(product.skin_types_source, 'derived', value);
    }
  });
});
