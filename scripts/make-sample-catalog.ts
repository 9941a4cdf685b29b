/**
 * Writes data/sample-catalog.jsonl: a demo catalog of fictional products for local runs and tests.
 *
 * Brands and products are invented; ingredient lists are assembled from realistic formula skeletons per
 * product type, so derivation meets the same variety as real labels (spelling variants, percentages,
 * may-contain sections, fragrance, drying alcohol, fungal-acne triggers, missing lists). A seeded
 * generator makes the output identical on every run: `node scripts/make-sample-catalog.ts`.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RawProduct } from '../services/catalog/derive.ts';

export const SAMPLE_SIZE = 320;
const SEED = 20261122;

/** Mulberry32: tiny, seedable, and the same on every platform. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BRANDS = [
  ['Lumora Labs', 'FR'],
  ['Verdant & Vale', 'GB'],
  ['Koto Botanics', 'JP'],
  ['Norrland Skin', 'SE'],
  ['Maison Célestine', 'FR'],
  ['Hanbit Dew', 'KR'],
  ['Saltmarsh Apothecary', 'US'],
  ['Cala Verde', 'ES'],
  ['Pellucid Lab', 'DE'],
  ['Tidewell', 'AU'],
  ['Oku Garden', 'KR'],
  ['Bramblewick', 'CA'],
  ['Mirelle Skin', 'IT'],
  ['Quillon & Co', 'US'],
] as const;

/** Formula fragments are written as INCI lists, the way labels print them. */
const inci = (list: string): string[] => list.split(', ');

const WATER = inci('Water, Aqua (Water), Water (Aqua), Aqua/Water/Eau, Purified Water');
const PRESERVATIVES = [
  inci('Phenoxyethanol, Ethylhexylglycerin'),
  inci('Phenoxyethanol, Chlorphenesin'),
  inci('1,2-Hexanediol, Caprylyl Glycol'),
  inci('Sodium Benzoate, Potassium Sorbate'),
  inci('Benzyl Alcohol, Dehydroacetic Acid'),
];
const FRAGRANCE = [
  inci('Parfum'),
  inci('Fragrance, Linalool, Limonene'),
  inci('Lavandula Angustifolia (Lavender) Oil, Linalool'),
  inci('Citrus Aurantium Dulcis (Orange) Peel Oil, Limonene, Citral'),
];
const BOTANICALS = inci(
  'Camellia Sinensis Leaf Extract, Centella Asiatica Extract, Aloe Barbadensis Leaf Juice, Glycyrrhiza Glabra (Licorice) Root Extract, Chamomilla Recutita (Matricaria) Flower Extract, Cucumis Sativus (Cucumber) Fruit Extract, Rosmarinus Officinalis (Rosemary) Leaf Extract, Avena Sativa (Oat) Kernel Extract',
);

interface Skeleton {
  readonly type: string;
  readonly nouns: readonly string[];
  readonly base: readonly string[][];
  readonly actives: readonly string[];
  readonly maxActives: number;
  /** Chance that the formula carries drying alcohol. */
  readonly alcohol: number;
}

const EMULSION_LIGHT = inci(
  'Glycerin, Caprylic/Capric Triglyceride, Cetearyl Alcohol, Cetearyl Olivate, Sorbitan Olivate, Squalane, Dimethicone, Carbomer, Sodium Hydroxide',
);
const EMULSION_RICH = inci(
  'Glycerin, Butyrospermum Parkii (Shea) Butter, Cetearyl Alcohol, Glyceryl Stearate, PEG-100 Stearate, Petrolatum, Simmondsia Chinensis (Jojoba) Seed Oil, Tocopherol',
);
const EMULSION_GEL = inci(
  'Butylene Glycol, Glycerin, Propanediol, Sodium Hyaluronate, Xanthan Gum, Hydroxyethylcellulose, Disodium EDTA',
);
const SURFACTANTS = inci(
  'Cocamidopropyl Betaine, Sodium Cocoyl Isethionate, Glycerin, Decyl Glucoside, Sodium Chloride, Citric Acid',
);
const SUN_BASE = inci(
  'Dibutyl Adipate, Isododecane, Glycerin, Polymethylsilsesquioxane, Caprylyl Methicone, Butylene Glycol, Tocopheryl Acetate',
);

function skeleton(
  type: string,
  nouns: string,
  base: readonly string[][],
  actives: string,
  maxActives: number,
  alcohol: number,
): Skeleton {
  return { type, nouns: nouns.split('; '), base, actives: inci(actives), maxActives, alcohol };
}

// biome-ignore format: one product type per line reads as a table
const SKELETONS: readonly Skeleton[] = [
  skeleton('cleanser', 'Gel Cleanser; Foaming Wash; Cream Cleanser', [SURFACTANTS, inci('Glycerin, Coco-Glucoside, Sodium Lauroyl Methyl Isethionate, Polysorbate 20, Xanthan Gum')], 'Salicylic Acid, Niacinamide, Panthenol, Allantoin, Gluconolactone, Ceramide NP', 2, 0),
  skeleton('toner', 'Toner; Balancing Tonic; Prep Water', [inci('Butylene Glycol, Glycerin, Sodium PCA, Betaine'), inci('Hamamelis Virginiana (Witch Hazel) Water, Glycerin, Propanediol')], 'Glycolic Acid, Lactic Acid, Niacinamide, Panthenol, Betaine Salicylate, Sodium Hyaluronate', 2, 0.25),
  skeleton('serum', 'Serum; Concentrate; Booster', [EMULSION_GEL, inci('Propanediol, Pentylene Glycol, Glycerin, Sodium Hyaluronate Crosspolymer, Acacia Senegal Gum')], 'Niacinamide 10%, Ascorbic Acid, Ethyl Ascorbic Acid, Alpha-Arbutin, Tranexamic Acid, Retinol, Hydroxypinacolone Retinoate, Azelaic Acid, Zinc PCA, Palmitoyl Tripeptide-1, Acetyl Hexapeptide-8, Ferulic Acid', 3, 0.05),
  skeleton('moisturizer', 'Moisturizer; Day Cream; Gel Cream; Barrier Cream', [EMULSION_LIGHT, EMULSION_RICH, EMULSION_GEL], 'Niacinamide, Ceramide NP, Ceramide AP, Panthenol, Urea, Allantoin, Bisabolol, Squalane, Colloidal Oatmeal, Adenosine', 3, 0),
  skeleton('sunscreen', 'Daily Shield SPF 50; Sun Fluid SPF 30; Mineral Veil SPF 50+', [SUN_BASE, inci('Caprylic/Capric Triglyceride, Alcohol Denat., Silica, Glycerin')], 'Zinc Oxide, Titanium Dioxide (CI 77891), Bis-Ethylhexyloxyphenol Methoxyphenyl Triazine, Ethylhexyl Triazone, Diethylamino Hydroxybenzoyl Hexyl Benzoate, Niacinamide', 3, 0.3),
  skeleton('eye_care', 'Eye Cream; Eye Gel; Under-Eye Serum', [EMULSION_LIGHT, EMULSION_GEL], 'Caffeine, Palmitoyl Tetrapeptide-7, Dipeptide-2, Hesperidin Methyl Chalcone, Retinal, Phytonadione, Niacinamide', 3, 0),
  skeleton('exfoliator', 'Exfoliating Liquid; Resurfacing Peel; Polishing Powder', [inci('Butylene Glycol, Glycerin, Sodium Hydroxide, Xanthan Gum'), inci('Propanediol, Polysorbate 20, Glycerin')], 'Glycolic Acid, Salicylic Acid 2%, Lactic Acid, Mandelic Acid, Papain, Gluconolactone', 2, 0.15),
  skeleton('mask', 'Clay Mask; Sleeping Mask; Sheet Mask', [inci('Kaolin, Bentonite, Glycerin, Butylene Glycol'), EMULSION_GEL, inci('Galactomyces Ferment Filtrate, Glycerin, Butylene Glycol')], 'Charcoal Powder, Salicylic Acid, Niacinamide, Centella Asiatica Extract, Honey, Sodium Hyaluronate', 2, 0),
  skeleton('treatment', 'Spot Treatment; Night Treatment; Clarifying Gel', [inci('Alcohol Denat., Glycerin, Hydroxyethylcellulose'), EMULSION_GEL, EMULSION_RICH], 'Benzoyl Peroxide, Salicylic Acid, Sulfur, Azelaic Acid, Adapalene, Retinol, Tea Tree Oil', 2, 0.2),
  skeleton('essence', 'Essence; First Essence', [inci('Galactomyces Ferment Filtrate, Butylene Glycol, Glycerin'), EMULSION_GEL], 'Niacinamide, Snail Secretion Filtrate, Sodium Hyaluronate, Beta-Glucan, Allantoin', 2, 0),
  skeleton('face oil', 'Face Oil; Nourishing Oil', [inci('Rosa Canina Fruit Oil, Squalane, Simmondsia Chinensis (Jojoba) Seed Oil, Tocopherol')], 'Bakuchiol, Tetrahexyldecyl Ascorbate, Retinol', 1, 0),
  skeleton('mist', 'Face Mist; Hydrating Mist', [inci('Glycerin, Butylene Glycol, Rosa Damascena Flower Water')], 'Panthenol, Sodium Hyaluronate, Centella Asiatica Extract', 1, 0.2),
];
const ADJECTIVES = [
  'Calm',
  'Clear',
  'Bright',
  'Daily',
  'Renew',
  'Soft',
  'Pure',
  'Balance',
  'Dew',
  'Restore',
  'Glow',
  'Smooth',
];
const SKIN_TYPE_CHOICES = [
  ['all'],
  ['oily', 'combination'],
  ['dry', 'normal'],
  ['dry', 'sensitive'],
  ['normal', 'combination'],
  ['Oily'],
];

/** A few records exercise what real feeds deliver: missing lists, spreadsheet errors, odd formatting. */
function quirk(index: number, ingredients: string): string | null {
  switch (index % 40) {
    case 7:
      return null;
    case 15:
      return '#NAME?';
    case 23:
      return `Ingredients: ${ingredients.replaceAll(', ', ',\n')}`;
    case 31:
      return ingredients.toUpperCase();
    case 35:
      return `${ingredients}. May contain (+/-): CI 77891, CI 77491.`;
    default:
      return ingredients;
  }
}

export function makeSampleCatalog(): RawProduct[] {
  const random = createRandom(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const products: RawProduct[] = [];

  for (let index = 0; index < SAMPLE_SIZE; index++) {
    const skeleton = SKELETONS[index % SKELETONS.length]!;
    const [brand, country] = pick(BRANDS);
    const actives = [
      ...new Set(
        Array.from({ length: 1 + Math.floor(random() * skeleton.maxActives) }, () => pick(skeleton.actives)),
      ),
    ];
    const base = pick(skeleton.base);
    const list = [
      ...(skeleton.type === 'face oil' ? [] : [pick(WATER)]),
      ...base.slice(0, 2),
      ...actives,
      ...base.slice(2),
      ...(chance(skeleton.alcohol) && !base.includes('Alcohol Denat.') ? ['Alcohol Denat.'] : []),
      ...(chance(0.5) ? [pick(BOTANICALS)] : []),
      ...pick(PRESERVATIVES),
      ...(chance(0.3) ? pick(FRAGRANCE) : []),
    ];
    const ingredients = [...new Set(list)].join(', ');
    const animal = /Honey|Snail|Beeswax|Lanolin/.test(ingredients);
    const id = `demo-${String(index + 1).padStart(4, '0')}`;
    products.push({
      product_id: id,
      name: `${pick(ADJECTIVES)} ${actives[0]?.replace(/\s*\([^)]*\)|\s*\d+%$/g, '') ?? ''} ${pick(skeleton.nouns)}`.replace(
        /\s+/g,
        ' ',
      ),
      brand,
      product_type: skeleton.type,
      country: chance(0.9) ? country : null,
      image_url: chance(0.8) ? `https://images.skinmatch.example/demo/${id}.jpg` : null,
      product_url: chance(0.7) ? `https://shop.skinmatch.example/products/${id}` : null,
      buy_url: chance(0.3) ? `https://shop.skinmatch.example/cart/add/${id}` : null,
      ingredients: quirk(index, ingredients),
      skin_types: chance(0.5) ? pick(SKIN_TYPE_CHOICES) : null,
      vegan: animal ? pick([false, null]) : pick([true, true, false, null, null]),
      cruelty_free: pick([true, true, false, null, null]),
      demo: true,
    });
  }
  return products;
}

/** One JSON object per line, keys in the documented order. */
export function toJsonLines(products: readonly RawProduct[]): string {
  return products
    .map((product) => JSON.stringify(product))
    .join('\n')
    .concat('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = new URL('../data/sample-catalog.jsonl', import.meta.url);
  writeFileSync(target, toJsonLines(makeSampleCatalog()));
  console.log(`wrote ${SAMPLE_SIZE} demo products to ${fileURLToPath(target)}`);
}
