import assert from 'node:assert/strict';
import { MAX_LIST, parseInci, readInci } from '../../services/catalog/inci/parse.ts';
import { canonicalName } from '../../services/catalog/inci/synonyms.ts';

const names = (text: string | null | undefined) => parseInci(text).map((ingredient) => ingredient.name);
const labels = (text: string) => parseInci(text).map((ingredient) => ingredient.label);

describe('INCI parser', () => {
  it('keeps commas inside parentheses within one ingredient', () => {
    assert.deepEqual(labels('Mica, Iron Oxides (CI 77491, CI 77492, CI 77499), Talc'), [
      'Mica',
      'Iron Oxides (CI 77491, CI 77492, CI 77499)',
      'Talc',
    ]);
  });

  it('does not split a comma between digits (1,2-Hexanediol)', () => {
    assert.deepEqual(names('Water, 1,2-Hexanediol, Glycerin'), ['water', '1,2-hexanediol', 'glycerin']);
  });

  it('reads Water (Aqua), Aqua (Water), Aqua/Water/Eau and Purified Water as water', () => {
    for (const spelling of [
      'Water (Aqua)',
      'Aqua (Water)',
      'Aqua/Water/Eau',
      'AQUA / WATER',
      'Purified Water',
      'Eau',
      'Water\\Aqua\\Eau',
    ]) {
      assert.deepEqual(names(`${spelling}, Glycerin`), ['water', 'glycerin'], spelling);
    }
  });

  it('keeps a slash name whose parts are different ingredients', () => {
    assert.deepEqual(names('Caprylic/Capric Triglyceride'), ['caprylic/capric triglyceride']);
  });

  it('marks the may-contain section, in its usual spellings', () => {
    const cases = [
      'Talc, Mica. May Contain (+/-): CI 77891, CI 77491.',
      'Talc, Mica [+/- CI 77891, CI 77491]',
      'Talc, Mica, (+/-) Titanium Dioxide (CI 77891), Iron Oxides',
      'Talc, Mica ± CI 77891, CI 77491',
    ];
    for (const text of cases) {
      const parsed = parseInci(text);
      assert.deepEqual(
        parsed.map((i) => [i.name, i.mayContain]),
        [
          ['talc', false],
          ['mica', false],
          ['titanium dioxide', true],
          ['iron oxides', true],
        ],
        text,
      );
    }
  });

  it('drops asterisks, footnote marks and the footnote legend', () => {
    const text =
      'Aqua, Glycerin*, Aloe Barbadensis Leaf Juice¹, Parfum**, Linalool†. *Certified organic ¹from farming';
    assert.deepEqual(labels(text), ['Aqua', 'Glycerin', 'Aloe Barbadensis Leaf Juice', 'Parfum', 'Linalool']);
  });

  it('a legend on its own line (a paragraph of a product page) is not glued to the last name', () => {
    for (const text of [
      'Aqua, Glycerin, *Aloe Barbadensis Leaf Juice, Linalool\n*organic',
      '<p>Aqua, Glycerin, *Aloe Barbadensis Leaf Juice, Linalool</p><p>*organic</p>',
      'Aqua, Glycerin, Aloe Barbadensis Leaf Juice†, Linalool\r\n†organic',
    ]) {
      assert.deepEqual(labels(text), ['Aqua', 'Glycerin', 'Aloe Barbadensis Leaf Juice', 'Linalool'], text);
    }
    // A marked entry on a line of its own is an entry, not the end of the name above it.
    assert.deepEqual(names('Aqua, Glycerin, Sodium Hyaluronate\n*Aloe Barbadensis Leaf Juice'), [
      'water',
      'glycerin',
      'sodium hyaluronate',
      'aloe barbadensis leaf juice',
    ]);
  });

  it('drops percentages, with or without parentheses', () => {
    assert.deepEqual(
      labels('Centella Asiatica Extract (100%), Niacinamide 10%, Salicylic Acid 0,5 %, Zinc PCA (1 %)'),
      ['Centella Asiatica Extract', 'Niacinamide', 'Salicylic Acid', 'Zinc PCA'],
    );
  });

  it('drops Ingredients: prefixes and drug-facts headings', () => {
    assert.deepEqual(names('Ingredients: Water, Glycerin'), ['water', 'glycerin']);
    assert.deepEqual(names('INGREDIENTS (INCI): Water, Glycerin'), ['water', 'glycerin']);
    assert.deepEqual(names('Active Ingredient: Salicylic Acid 2%. Inactive Ingredients: Water, Glycerin.'), [
      'salicylic acid',
      'water',
      'glycerin',
    ]);
  });

  it('treats line breaks as wrapping in a comma list and as separators otherwise', () => {
    assert.deepEqual(names('Water, Butyrospermum Parkii\n(Shea) Butter,\r\nGlycerin'), [
      'water',
      'butyrospermum parkii butter',
      'glycerin',
    ]);
    assert.deepEqual(names('Water\nGlycerin\r\nNiacinamide'), ['water', 'glycerin', 'niacinamide']);
  });

  it('ignores trailing periods and keeps the period of Alcohol Denat. out of the name', () => {
    assert.deepEqual(names('Water, Alcohol Denat., Glycerin.'), ['water', 'alcohol denat', 'glycerin']);
  });

  it('returns no ingredients for missing or spreadsheet-error values, without throwing', () => {
    for (const value of ['#NAME?', '#N/A', '', '   ', 'N/A', '-', null, undefined]) {
      assert.deepEqual(parseInci(value), [], String(value));
    }
  });

  it('is case-insensitive for names but keeps the printed label', () => {
    const parsed = parseInci('NIACINAMIDE, niacinamide, Sodium HYALURONATE');
    assert.deepEqual(
      parsed.map((i) => [i.label, i.name]),
      [
        ['NIACINAMIDE', 'niacinamide'],
        ['Sodium HYALURONATE', 'sodium hyaluronate'],
      ],
    );
  });

  it('maps synonyms to one canonical name', () => {
    assert.equal(canonicalName('Parfum'), 'fragrance');
    assert.equal(canonicalName('Fragrance (Parfum)'), 'fragrance');
    assert.equal(canonicalName('Vitamin E'), 'tocopherol');
    assert.equal(canonicalName('Tocopherol'), 'tocopherol');
    assert.equal(canonicalName('Nicotinamide'), 'niacinamide');
    assert.equal(canonicalName('CI 77891'), 'titanium dioxide');
    assert.equal(canonicalName('Paraffinum Liquidum'), 'mineral oil');
    assert.equal(canonicalName('Butyrospermum Parkii (Shea Butter)'), 'butyrospermum parkii butter');
    assert.equal(canonicalName('Tocopheryl Acetate (Vitamin E)'), 'tocopheryl acetate');
  });

  it('splits (and) blends and or-alternatives into separate ingredients', () => {
    assert.deepEqual(names('Cetearyl Alcohol (and) Ceteareth-20, Sodium Tallowate or Sodium Palmitate'), [
      'cetearyl alcohol',
      'ceteareth-20',
      'sodium tallowate',
      'sodium palmitate',
    ]);
  });

  it('survives unbalanced parentheses', () => {
    assert.deepEqual(names('Water (Aqua, Glycerin, Niacinamide'), ['water', 'glycerin', 'niacinamide']);
    assert.deepEqual(names('Water), Glycerin'), ['water', 'glycerin']);
  });

  it('reads a list whatever its runs of spaces, and a field past MAX_LIST characters as no list', () => {
    const indented = `<p>\n${' '.repeat(40_000)}Aqua,${' \t'.repeat(20_000)}Glycerin\n${'\u00a0'.repeat(9_000)}</p>`;
    assert.deepEqual(names(indented), ['water', 'glycerin']);
    const long = `Aqua, ${'Glycerin, '.repeat(MAX_LIST / 10)}Niacinamide`;
    assert.deepEqual(readInci(long), {
      status: 'not_a_list',
      ingredients: [],
      note: `${long.length} characters long: no ingredient list runs past ${MAX_LIST}`,
      text: '',
    });
  });

  it('keeps the first position of an ingredient listed twice', () => {
    assert.deepEqual(names('Zinc Oxide 9%. Inactive: Water, Zinc Oxide, Aqua'), ['zinc oxide', 'water']);
  });
});
