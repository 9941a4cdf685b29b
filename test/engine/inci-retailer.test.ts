/**
 * Ingredient fields as retailer exports hold them. Each case is written from the *shape* of real fields
 * (placeholders, shop copy, lost separators, footnote marks); brands and products are invented.
 */
import assert from 'node:assert/strict';
import { readInci } from '../../services/catalog/inci/parse.ts';

const names = (text: string) => {
  const reading = readInci(text);
  assert.equal(reading.status, 'listed', `${text}: ${reading.note}`);
  return reading.ingredients.map((ingredient) => ingredient.name);
};
const notAList = (text: string) => {
  const reading = readInci(text);
  assert.equal(reading.status, 'not_a_list', text);
  assert.deepEqual(reading.ingredients, []);
  assert.ok(reading.note !== null && reading.note.length > 0);
  return reading.note;
};

describe('INCI parser on retailer data', () => {
  describe('a field that is not an ingredient list', () => {
    it('a shop placeholder sentence ("Visit the … boutique")', () => {
      assert.match(notAList('Visit the Northwind Skin boutique'), /not ingredients: "Visit the/);
    });
    it('a short placeholder ("No Info", "Not available", "See packaging")', () => {
      for (const text of ['No Info', 'Not available', 'See packaging for the full list', 'Unknown', 'TBD']) {
        notAList(text);
      }
    });
    it('a spreadsheet error is a placeholder, an empty field is missing', () => {
      assert.match(notAList('#NAME?'), /placeholder/);
      assert.equal(readInci('  ').status, 'missing');
      assert.equal(readInci(null).status, 'missing');
    });
    it('marketing bullet points', () => {
      notAList('• Hydrates for 24 hours • Suitable for sensitive skin • Free from synthetic fragrance');
      notAList('✓ Dermatologist tested\n✓ Non-comedogenic\n✓ Vegan formula');
    });
    it('marketing sentences with commas', () => {
      notAList('Gentle, non-comedogenic, fragrance-free formula that hydrates for 24 hours.');
      notAList('Our bestselling moisturiser is back. Apply morning and evening to clean skin.');
    });
    it('a disclaimer alone does not make a product fragranced', () => {
      notAList('Free from synthetic fragrance, parabens and sulfates');
    });
    it('words with no separators that cannot be recovered', () => {
      assert.match(notAList('Lorem ipsum dolor sit amet consectetur adipiscing elit sed do'), /separators/);
    });
  });

  describe('shop copy inside a list is left out, the list is kept', () => {
    it('a disclaimer sentence after the list', () => {
      const reading = readInci('Aqua, Glycerin, Niacinamide. Free from synthetic fragrance.');
      assert.deepEqual(
        reading.ingredients.map((i) => i.name),
        ['water', 'glycerin', 'niacinamide'],
      );
      assert.match(
        reading.note ?? '',
        /left out text that is not an ingredient: "Free from synthetic fragrance/,
      );
    });
    it('a disclaimer as the last comma entry', () => {
      assert.deepEqual(names('Water, Glycerin, Panthenol, free from added fragrance'), [
        'water',
        'glycerin',
        'panthenol',
      ]);
    });
    it('lines of shop copy above a comma-separated list that wraps', () => {
      assert.deepEqual(
        names('Hydrates for 24 hours\nFree from parabens\nAqua, Glycerin, Cetearyl\nAlcohol, Parfum'),
        ['water', 'glycerin', 'cetearyl alcohol', 'fragrance'],
      );
    });
  });

  describe('separator recovery', () => {
    it('a list separated by spaces only', () => {
      assert.deepEqual(
        names('Aqua Glycerin Niacinamide Butylene Glycol Alcohol Denat. Parfum Linalool Phenoxyethanol'),
        [
          'water',
          'glycerin',
          'niacinamide',
          'butylene glycol',
          'alcohol denat',
          'fragrance',
          'linalool',
          'phenoxyethanol',
        ],
      );
    });
    it('a space-separated list in capitals', () => {
      assert.deepEqual(names('AQUA GLYCERIN PROPYLENE GLYCOL SODIUM HYALURONATE PARFUM'), [
        'water',
        'glycerin',
        'propylene glycol',
        'sodium hyaluronate',
        'fragrance',
      ]);
    });
    it('a space-separated list keeps codes and numbers with their names', () => {
      assert.deepEqual(names('Water Zinc PCA Polysorbate 20 Ceramide NP Vitamin E Alcohol'), [
        'water',
        'zinc pca',
        'polysorbate 20',
        'ceramide np',
        'tocopherol',
        'alcohol',
      ]);
    });
    it('a list with one entry per line, even when an entry holds commas in parentheses', () => {
      assert.deepEqual(names('Water\nGlycerin\nIron Oxides (CI 77491, CI 77492)\nAlcohol'), [
        'water',
        'glycerin',
        'iron oxides',
        'alcohol',
      ]);
    });
    it('a percentage glued to the next name', () => {
      assert.deepEqual(names('Avobenzone 3%Homosalate 10% Octisalate 4.5%Alcohol Denat., Water'), [
        'avobenzone',
        'homosalate',
        'octisalate',
        'alcohol denat',
        'water',
      ]);
    });
    it('a period moved before the next name, or left without a space', () => {
      assert.deepEqual(names('Water, Alcohol .Citric Acid, Glycerin'), [
        'water',
        'alcohol',
        'citric acid',
        'glycerin',
      ]);
      assert.deepEqual(names('Water, Alcohol.Citric Acid'), ['water', 'alcohol', 'citric acid']);
    });
    it('a single-ingredient product is one name, not a lost list', () => {
      assert.deepEqual(names('Squalane'), ['squalane']);
      assert.deepEqual(names('Simmondsia Chinensis (Jojoba) Seed Oil'), ['simmondsia chinensis seed oil']);
      assert.deepEqual(names('Rosa Canina Fruit Oil'), ['rosa canina fruit oil']);
    });
    it('long INCI names in a comma list are not split', () => {
      assert.deepEqual(
        names(
          'Water, Sodium Acrylates/C10-30 Alkyl Acrylate Crosspolymer, Hydroxyethyl Acrylate/Sodium Acryloyldimethyl Taurate Copolymer, Glycerin',
        ),
        [
          'water',
          'sodium acrylates/c10-30 alkyl acrylate crosspolymer',
          'hydroxyethyl acrylate/sodium acryloyldimethyl taurate copolymer',
          'glycerin',
        ],
      );
    });
  });

  describe('footnote marks', () => {
    it('a plus, a hash or asterisks after a name', () => {
      assert.deepEqual(names('Water, Glycerin, Fragrance+, Linalool**, Citronellol#, Limonene†'), [
        'water',
        'glycerin',
        'fragrance',
        'linalool',
        'citronellol',
        'limonene',
      ]);
    });
    it('a plus legend after the list is not an ingredient', () => {
      assert.deepEqual(names('Aqua, Glycerin, Parfum+. +Natural origin fragrance'), [
        'water',
        'glycerin',
        'fragrance',
      ]);
    });
  });
});

describe('INCI parser on lists copied from a product page', () => {
  const lists = [
    ['Aqua', 'Glycerin', 'Niacinamide', 'Alcohol Denat.', 'Parfum'],
    ['Water', 'Butylene Glycol', 'Cetearyl Alcohol', 'Salicylic Acid (2%)', 'Fragrance', 'Linalool'],
    ['Aqua/Water/Eau', 'Crème de Coco', 'Sodium Hyaluronate', 'Citrus Aurantium Dulcis (Orange) Peel Oil'],
  ];
  const entity = (text: string) =>
    text.replace(/[^\x20-\x7e]/g, (c) => `&#${c.codePointAt(0)};`).replace(/'/g, '&#39;');
  const named = (text: string) => text.replace(/&/g, '&amp;').replace(/è/g, '&egrave;');
  // Each shape wraps a comma-less or comma list the way shops' pages and exports carry it.
  const shapes: Record<string, (entries: readonly string[]) => string> = {
    paragraph: (e) => `<p>${e.join(', ')}</p>`,
    'line breaks': (e) => e.join('<br>'),
    'self-closing breaks': (e) => e.join('<br />\n'),
    'list items': (e) => `<ul>${e.map((x) => `<li>${x}</li>`).join('')}</ul>`,
    'inline tags': (e) =>
      e.map((x, i) => (i % 2 ? `<strong>${x}</strong>` : `<span class="inci">${x}</span>`)).join(', '),
    'numeric references': (e) => entity(e.join(', ')),
    'escaped twice': (e) => e.join(', &lt;br&gt;'),
    'escaped paragraph': (e) => `&lt;p&gt;${e.join(', ')}&lt;/p&gt;`,
    'named references': (e) => named(e.join(', ')),
  };
  for (const [shape, wrap] of Object.entries(shapes)) {
    it(`${shape}: the same ingredients as the plain list`, () => {
      for (const entries of lists) {
        const text = wrap(entries);
        assert.deepEqual(names(text), names(entries.join(', ')), text);
      }
    });
  }
  it('decodes the accents and entities shops use, and leaves a "<" that opens no tag alone', () => {
    assert.deepEqual(
      names('Aqua, Cr&egrave;me de Coco, Glycerin &amp; Water'),
      names('Aqua, Crème de Coco, Glycerin & Water'),
    );
    assert.deepEqual(names('Aqua, Glycerin, Parfum < 1%'), names('Aqua, Glycerin, Parfum'));
    assert.deepEqual(names('Aqua, &lt;1% Parfum, Glycerin'), names('Aqua, <1% Parfum, Glycerin'));
  });
  it('fragrance and drying alcohol inside markup still count', () => {
    for (const wrap of Object.values(shapes)) {
      const got = names(wrap(lists[0]!));
      for (const name of ['fragrance', 'alcohol denat'])
        assert.ok(got.includes(name), `${wrap(lists[0]!)} → ${got}`);
    }
  });
});
