import assert from 'node:assert/strict';
import { canonicalName, canonicalNames } from '../../services/catalog/inci/synonyms.ts';
import { ingredientFacts } from '../../services/catalog/knowledge/facts.ts';
import { CAUTION_LISTS, KB_VERSION, KNOWLEDGE } from '../../services/catalog/knowledge/knowledge.ts';
import { MEASURES } from '../../services/shared/measures.ts';

const allLists = () => [
  { list: 'actives', entries: KNOWLEDGE.actives.entries },
  ...CAUTION_LISTS.map((list) => ({ list, entries: KNOWLEDGE.lists[list].entries })),
];

const cautionsOf = (label: string) => {
  const facts = ingredientFacts(canonicalName(label));
  return CAUTION_LISTS.filter((list) => facts.cautions[list] !== null);
};

describe('ingredient knowledge base', () => {
  it('has a dated version', () => {
    assert.match(KB_VERSION, /^\d{4}\.\d{1,2}\.\d+$/);
  });

  it('gives every entry a one-line reason and a unique name', () => {
    for (const { list, entries } of allLists()) {
      assert.ok(entries.length > 0, list);
      const names = new Set<string>();
      for (const entry of entries) {
        assert.ok(entry.reason.length >= 20 && !/[\r\n]/.test(entry.reason), `${list}/${entry.name}`);
        assert.ok(!names.has(entry.name), `duplicate ${list}/${entry.name}`);
        names.add(entry.name);
      }
    }
  });

  it('never lists one exact name under two entries of the same list', () => {
    for (const { list, entries } of allLists()) {
      const owners = new Map<string, string>();
      for (const entry of entries) {
        for (const pattern of entry.patterns) {
          if (pattern.exact === null) continue;
          assert.equal(owners.get(pattern.exact), undefined, `${list}: "${pattern.exact}" in two entries`);
          owners.set(pattern.exact, entry.name);
        }
      }
    }
  });

  it('uses canonical names in exact patterns, so no synonym hides an entry', () => {
    for (const { list, entries } of allLists()) {
      for (const entry of entries) {
        for (const pattern of entry.patterns) {
          if (pattern.exact !== null)
            assert.equal(canonicalName(pattern.exact), pattern.exact, `${list}/${entry.name}`);
        }
      }
    }
  });

  it('has actives for every measure', () => {
    for (const measure of MEASURES) {
      const actives = KNOWLEDGE.actives.entries.filter((active) => active.concerns[measure] !== undefined);
      assert.ok(actives.length >= 3, `${measure}: ${actives.length} actives`);
    }
  });

  it('keeps actives off every caution list, so adding an active never adds a conflict', () => {
    for (const active of KNOWLEDGE.actives.entries) {
      for (const pattern of active.patterns) {
        const name = pattern.exact ?? pattern.source.replaceAll('*', 'leaf');
        assert.deepEqual(cautionsOf(name), [], `${active.name}: ${name}`);
      }
    }
  });

  it('keeps synonym canonical names stable under canonicalisation', () => {
    for (const name of canonicalNames()) assert.equal(canonicalName(name), name);
  });

  describe('drying alcohols, on word boundaries', () => {
    for (const label of [
      'Alcohol',
      'Alcohol Denat.',
      'SD Alcohol 40-B',
      'Isopropyl Alcohol',
      'Ethanol',
      'Ethyl Alcohol',
      'Methyl Alcohol',
      'Methanol',
    ]) {
      it(`${label} is drying`, () => assert.ok(cautionsOf(label).includes('drying-alcohols')));
    }
    const notDrying = [
      'Phenoxyethanol',
      'Cetearyl Alcohol',
      'Cetyl Alcohol',
      'Stearyl Alcohol',
      'Behenyl Alcohol',
      'Lanolin Alcohol',
      'Benzyl Alcohol',
      'Ethoxydiglycol',
    ];
    for (const label of notDrying) {
      it(`${label} is not drying`, () => assert.ok(!cautionsOf(label).includes('drying-alcohols')));
    }
    it('Benzyl Alcohol is a fragrance allergen of kind preservative, with its reason', () => {
      const entry = ingredientFacts('benzyl alcohol').cautions.fragrance;
      assert.equal(entry?.kind, 'preservative');
      assert.match(entry?.reason ?? '', /preservative/);
    });
  });

  describe('fragrance', () => {
    const scented = [
      'Parfum',
      'Fragrance',
      'Aroma',
      'Linalool',
      'Limonene',
      'Citronellol',
      'Geraniol',
      'Eugenol',
      'Coumarin',
    ];
    for (const label of [
      ...scented,
      'Lavandula Angustifolia (Lavender) Oil',
      'Citrus Limon (Lemon) Peel Oil',
    ]) {
      it(`${label} is fragrance`, () => assert.ok(cautionsOf(label).includes('fragrance')));
    }
    for (const label of [
      'Rosmarinus Officinalis (Rosemary) Leaf Extract',
      'Citrus Paradisi Seed Oil',
      'Tocopherol',
    ]) {
      it(`${label} is not fragrance`, () => assert.ok(!cautionsOf(label).includes('fragrance')));
    }

    // Fragrant essential oils by botanical genus and plant part, and by their English names.
    const essentialOils = [
      'Lavandula Hybrida Oil',
      'Pogostemon Cablin Oil',
      'Pogostemon Cablin (Patchouli) Leaf Oil',
      'Boswellia Carterii Oil',
      'Boswellia Sacra Resin Oil',
      'Litsea Cubeba Fruit Oil',
      'Juniperus Communis Fruit Oil',
      'Ocimum Basilicum (Basil) Oil',
      'Cupressus Sempervirens Leaf/Stem Oil',
      'Anthemis Nobilis Flower Oil',
      'Chamaemelum Nobile Oil',
      'Thymus Vulgaris (Thyme) Oil',
      'Commiphora Myrrha Oil',
      'Santalum Album (Sandalwood) Oil',
      'Salvia Sclarea (Clary) Oil',
      'Rosa Damascena Flower Oil',
      'Lavender Oil',
      'Peppermint Oil',
      'Sweet Orange Oil',
      'Orange Peel Oil',
      'Lime Oil',
      'Mandarin Oil',
      'Tangerine Peel Oil',
      'Geranium Oil',
      'Roman Chamomile Oil',
      'Thyme Oil',
      'Organic Frankincense Oil',
      'Jasminum Grandiflorum Flower Absolute',
    ];
    for (const label of essentialOils) {
      it(`${label} is a fragrant essential oil or extract`, () => {
        const entry = ingredientFacts(canonicalName(label)).cautions.fragrance;
        assert.ok(entry !== null, label);
        assert.ok(['essential_oil', 'fragrance_extract'].includes(entry.kind ?? ''), entry.name);
        assert.ok(entry.reason.length > 0);
      });
    }
    // The same plants' seed, kernel and nut oils are fixed oils with no scent.
    for (const label of [
      'Santalum Spicatum Seed Oil',
      'Sandalwood Seed Oil',
      'Salvia Hispanica (Chia) Seed Oil',
      'Citrus Aurantium Dulcis (Orange) Seed Oil',
      'Rosa Canina Fruit Oil',
      'Rosa Rubiginosa Seed Oil',
      'Rosa Damascena Flower Water',
    ]) {
      it(`${label} has no scent`, () => assert.ok(!cautionsOf(label).includes('fragrance')));
    }
    it('spares every essential oil from the fungal-acne plant-oil entry', () => {
      for (const label of ['Lavender Oil', 'Pogostemon Cablin Oil', 'Santalum Album Oil']) {
        assert.ok(!cautionsOf(label).includes('fungal-acne'), label);
      }
      assert.ok(cautionsOf('Santalum Spicatum Seed Oil').includes('fungal-acne'));
    });
  });

  describe('fungal-acne triggers', () => {
    const triggers = [
      'Polysorbate 20',
      'Glyceryl Stearate SE',
      'Isopropyl Myristate',
      'Helianthus Annuus (Sunflower) Seed Oil',
      'Butyrospermum Parkii (Shea) Butter',
      'Galactomyces Ferment Filtrate',
      'Lauric Acid',
      'Polyglyceryl-3 Diisostearate',
    ];
    for (const label of triggers)
      it(`${label} is a trigger`, () => assert.ok(cautionsOf(label).includes('fungal-acne')));
    const safe = [
      'Caprylic/Capric Triglyceride',
      'Squalane',
      'Mineral Oil',
      'Melaleuca Alternifolia (Tea Tree) Leaf Oil',
      'Cetearyl Alcohol',
      'Isoceteth-20',
      'Ceramide NP',
    ];
    for (const label of safe)
      it(`${label} is not a trigger`, () => assert.ok(!cautionsOf(label).includes('fungal-acne')));
  });

  it('finds common animal-derived ingredients', () => {
    for (const label of [
      'Lanolin',
      'Cera Alba',
      'Mel',
      'Snail Secretion Filtrate',
      'Carmine',
      'Hydrolyzed Collagen',
    ]) {
      assert.ok(cautionsOf(label).includes('animal-derived'), label);
    }
    assert.deepEqual(cautionsOf('Avena Sativa (Oat) Kernel Flour'), []);
  });
});
