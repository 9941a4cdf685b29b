/**
 * Raw catalog record → derived product.
 *
 * Everything the matching engine and `recommend_products` need beyond what the source states is derived
 * here from the INCI list and the knowledge base: parsed ingredients, what the formula targets, its key
 * actives, caution flags and the free-from attributes. Derivation is pure and deterministic; the result
 * records the knowledge-base version it was derived with.
 */
import { MEASURES, type Measure } from '../shared/measures.ts';
import { cutOff, FREE_FROM_FLAGS, type FreeFromFlag, namedTerms, RAISES, runTogether } from './free-from.ts';
import { type InciReading, type Ingredient, type ListStatus, readInci } from './inci/parse.ts';
import { ingredientFacts } from './knowledge/facts.ts';
import { type Active, type CautionList, KB_VERSION, TARGET_EVIDENCE } from './knowledge/knowledge.ts';
import { KIND_BIT, nameKinds, productKinds, readsName } from './product-kind.ts';

/** Skin types a person may state (the `skin_type` input of `recommend_products`). */
export const SKIN_TYPES = ['dry', 'oily', 'combination', 'normal'] as const;
export type SkinType = (typeof SKIN_TYPES)[number];
/** Skin types a product may be declared suitable for. */
export type ProductSkinType = SkinType | 'sensitive';

/** A catalog record as a source provides it (docs/catalog-format.md). */
export interface RawProduct {
  readonly product_id: string;
  readonly name: string;
  readonly brand: string | null;
  readonly product_type: string | null;
  readonly country: string | null;
  readonly image_url: string | null;
  readonly product_url: string | null;
  readonly buy_url: string | null;
  /** The INCI list exactly as the source gives it. */
  readonly ingredients: string | null;
  /** Skin types the source declares the product suitable for, when it does. */
  readonly skin_types: readonly string[] | null;
  readonly vegan: boolean | null;
  readonly cruelty_free: boolean | null;
  /** Marks records written for demos and tests, never real products. */
  readonly demo?: boolean;
}

/** The five attributes of a product match item; null when nothing can be said. */
export interface Attributes {
  readonly vegan: boolean | null;
  readonly cruelty_free: boolean | null;
  readonly fragrance_free: boolean | null;
  readonly alcohol_free: boolean | null;
  readonly fungal_acne_safe: boolean | null;
}

/** Formulation facts the engine weighs against a scan's concerns. */
export const FORMULATION_FLAGS = [
  'fragrance',
  'drying_alcohol',
  'fungal_acne_trigger',
  'pore_clogging',
  'rich_texture',
] as const;
export type FormulationFlag = (typeof FORMULATION_FLAGS)[number];

export interface DerivedProduct extends Omit<RawProduct, 'skin_types'> {
  readonly skin_types: readonly ProductSkinType[];
  /** Whether skin_types came from the source, from the formula, or neither (no ingredient list). */
  readonly skin_types_source: 'declared' | 'derived' | 'unknown';
  readonly parsed_ingredients: readonly Ingredient[];
  /**
   * Whether the ingredient field held a list (`listed`), nothing (`missing`), or something else: a
   * placeholder, shop copy, words without recoverable separators (`not_a_list`). Only `listed` says
   * anything about flags; the others leave every flag and the score unknown.
   */
  readonly ingredients_status: ListStatus;
  /** Why the field is not a list, or what was left out of it; null when nothing needs saying. */
  readonly ingredients_note: string | null;
  /** Summed evidence (1–3 per active) of the product's actives, per concern it addresses at all. */
  readonly evidence: Readonly<Partial<Record<Measure, number>>>;
  /** Concerns the formula addresses, strongest first, at most MAX_TARGETS. */
  readonly targets: readonly Measure[];
  /** The actives behind the targets, in list order, at most MAX_KEY_INGREDIENTS. */
  readonly key_ingredients: readonly string[];
  readonly flags: readonly FormulationFlag[];
  /** Distinct barrier-support entries among the ingredients (knowledge/barrier-support.json), list order. */
  readonly barrier_support: readonly string[];
  /** A sun-protection product whose list holds a UV filter. */
  readonly sun_protection: boolean;
  readonly attributes: Attributes;
  readonly kb_version: string;
}

export const MAX_TARGETS = 6;
export const MAX_KEY_INGREDIENTS = 5;
/**
 * Fixed plant oils make a formula rich when at least this share of its ingredients are oils. Richness
 * deliberately ignores list position: below 1 % label order is free, so markets and scrapers list the same
 * product in different orders, and its score must not change with them.
 */
const RICH_OIL_SHARE = 1 / 3;

/**
 * What an ingredient field says about a formula: everything derived from the list alone, given whether the
 * product is meant for sun protection (which decides whether UV filters count). Most of a derivation's
 * time is here, and a catalog carries the same formula under many ids, so imports reuse it (formula-memo.ts).
 */
export interface Formula {
  readonly reading: InciReading;
  readonly evidence: Readonly<Partial<Record<Measure, number>>>;
  readonly targets: readonly Measure[];
  readonly keyIngredients: readonly string[];
  readonly flags: readonly FormulationFlag[];
  readonly barrierSupport: readonly string[];
  /** A sun-care product whose list has a UV filter. */
  readonly sunProtects: boolean;
  readonly animalDerived: boolean;
  /**
   * Free-from flags the list does not raise but cannot be trusted not to (free-from.ts): a piece of the text
   * raises one where no entry was read as it, or an entry reads as several names run together.
   */
  readonly unsure: readonly FreeFromFlag[];
  /** The reading's note, and why any flag is unsure; null when nothing needs saying. */
  readonly note: string | null;
}

export function analyseFormula(ingredients: string | null, sunProtection: boolean): Formula {
  const reading = readInci(ingredients);
  const parsed = reading.ingredients;
  const certain = parsed.filter((ingredient) => !ingredient.mayContain);
  const counts = (active: Active | null): active is Active =>
    active !== null && (active.context === null || sunProtection);

  const evidence = sumEvidence(
    certain.map((ingredient) => ingredientFacts(ingredient.name).active).filter(counts),
  );
  const targets = targetsOf(evidence);
  const keyIngredients = certain
    .filter((ingredient) => {
      const active = ingredientFacts(ingredient.name).active;
      return counts(active) && targets.some((target) => active.concerns[target] !== undefined);
    })
    .map((ingredient) => displayLabel(ingredient.label))
    .slice(0, MAX_KEY_INGREDIENTS);

  const listed = (list: CautionList) =>
    parsed.some((ingredient) => ingredientFacts(ingredient.name).cautions[list] !== null);
  const raised = (flag: FreeFromFlag) => parsed.some((ingredient) => RAISES[flag](ingredient.name));
  const flagged: Record<FormulationFlag, boolean> = {
    fragrance: raised('fragrance'),
    drying_alcohol: raised('drying_alcohol'),
    fungal_acne_trigger: raised('fungal_acne_trigger'),
    pore_clogging: listed('pore-clogging'),
    rich_texture: isRich(certain),
  };
  const { unsure, why } = unsureFlags(reading, flagged);
  return {
    reading,
    evidence,
    targets,
    keyIngredients,
    flags: FORMULATION_FLAGS.filter((flag) => flagged[flag]),
    barrierSupport: [
      ...new Set(certain.flatMap((ingredient) => ingredientFacts(ingredient.name).barrier?.name ?? [])),
    ],
    sunProtects:
      sunProtection &&
      certain.some((ingredient) => ingredientFacts(ingredient.name).active?.context === 'sun_protection'),
    animalDerived: listed('animal-derived'),
    unsure,
    note: [reading.note, why].filter((part) => part !== null).join('; ') || null,
  };
}

/**
 * The free-from flags a listed formula does not raise, yet whose absence its list cannot vouch for: the list
 * was cut short or an entry reads as several names run together (every such flag), or a piece of the text
 * raises a flag that no entry was read as. With why, for the import's warning.
 */
function unsureFlags(
  reading: InciReading,
  flagged: Readonly<Record<FormulationFlag, boolean>>,
): { unsure: FreeFromFlag[]; why: string | null } {
  if (reading.ingredients.length === 0) return { unsure: [], why: null };
  const open = FREE_FROM_FLAGS.filter((flag) => !flagged[flag]);
  const unknown = open.map((flag) => ATTRIBUTE_OF[flag]).join(', ');
  const cut = cutOff(reading.text);
  if (cut !== null && open.length > 0)
    return { unsure: open, why: `the list is cut off ("${cut}"): ${unknown} unknown` };
  const merged = reading.ingredients.find((ingredient) => runTogether(ingredient.label, ingredient.name));
  if (merged !== undefined && open.length > 0)
    return { unsure: open, why: `"${merged.label}" reads as several names run together: ${unknown} unknown` };
  const named = namedTerms(reading.text, open);
  if (named.size === 0) return { unsure: [], why: null };
  const unsure = open.filter((flag) => named.has(flag));
  const why = unsure.map(
    (flag) => `${ATTRIBUTE_OF[flag]} unknown: the list names "${named.get(flag)}" outside the entries read`,
  );
  return { unsure, why: why.join('; ') };
}

const ATTRIBUTE_OF: Readonly<Record<FreeFromFlag, keyof Attributes>> = {
  fragrance: 'fragrance_free',
  drying_alcohol: 'alcohol_free',
  fungal_acne_trigger: 'fungal_acne_safe',
};

export function deriveProduct(raw: RawProduct): DerivedProduct {
  return productOf(raw, analyseFormula(raw.ingredients, isSunProtection(raw)));
}

/** The derived product of a record whose ingredient field says `formula`. */
export function productOf(raw: RawProduct, formula: Formula): DerivedProduct {
  const { reading, evidence, targets, keyIngredients, flags, barrierSupport, sunProtects, animalDerived } =
    formula;
  const hasList = reading.ingredients.length > 0;
  const has = (flag: FormulationFlag) => flags.includes(flag);
  /** A free-from attribute: false when the list raises its flag, unknown when it cannot vouch for it. */
  const free = (flag: FreeFromFlag) =>
    !hasList || formula.unsure.includes(flag) ? (has(flag) ? false : null) : !has(flag);
  const declared = declaredSkinTypes(raw.skin_types);

  return {
    // Only the documented fields are carried over, so a feed's extra columns never reach a response.
    product_id: raw.product_id,
    name: raw.name,
    brand: raw.brand,
    product_type: raw.product_type,
    country: raw.country,
    image_url: raw.image_url,
    product_url: raw.product_url,
    buy_url: raw.buy_url,
    ingredients: raw.ingredients,
    vegan: raw.vegan,
    cruelty_free: raw.cruelty_free,
    ...(raw.demo === undefined ? {} : { demo: raw.demo }),
    skin_types: declared.length > 0 ? declared : hasList ? formulaSkinTypes(has('rich_texture')) : [],
    skin_types_source: declared.length > 0 ? 'declared' : hasList ? 'derived' : 'unknown',
    parsed_ingredients: reading.ingredients,
    ingredients_status: reading.status,
    ingredients_note: formula.note,
    evidence,
    targets,
    key_ingredients: keyIngredients,
    flags,
    barrier_support: barrierSupport,
    sun_protection: sunProtects,
    attributes: {
      // An animal-derived ingredient contradicts a stated `vegan: true` (contradictedClaims says so).
      vegan: animalDerived ? false : raw.vegan,
      cruelty_free: raw.cruelty_free,
      fragrance_free: free('fragrance'),
      alcohol_free: free('drying_alcohol'),
      fungal_acne_safe: free('fungal_acne_trigger'),
    },
    kb_version: KB_VERSION,
  };
}

/**
 * Claims the product's own ingredient list contradicts, for the import's warnings: a stated `vegan: true`
 * beside an animal-derived ingredient, and a name that says vegan, fragrance-free or alcohol-free beside
 * what it excludes. The attributes already follow the list (vegan false, fragrance_free false, …).
 */
export function contradictedClaims(product: DerivedProduct): string[] {
  const holding = (raises: (name: string) => boolean) =>
    product.parsed_ingredients.filter((ingredient) => raises(ingredient.name)).map((i) => i.label);
  const animal = holding((name) => ingredientFacts(name).cautions['animal-derived'] !== null);
  const claims: string[] = [];
  if (product.vegan === true && animal.length > 0) {
    claims.push(
      `vegan: true is contradicted by its ingredients: ${animal.join(', ')} (animal-derived): imported as vegan false`,
    );
  }
  for (const { claim, words, listed, attribute } of [
    // A stated vegan: true was said above.
    { claim: 'vegan', words: VEGAN_NAME, listed: product.vegan === true ? [] : animal, attribute: 'vegan' },
    {
      claim: 'fragrance-free',
      words: FRAGRANCE_FREE_NAME,
      listed: holding(RAISES.fragrance),
      attribute: 'fragrance_free',
    },
    {
      claim: 'alcohol-free',
      words: ALCOHOL_FREE_NAME,
      listed: holding(RAISES.drying_alcohol),
      attribute: 'alcohol_free',
    },
  ]) {
    const said = words.exec(product.name)?.[0];
    if (said !== undefined && listed.length > 0) {
      claims.push(
        `the name says ${claim} ("${said}"), but its ingredients list ${listed.join(', ')}: ${attribute} false`,
      );
    }
  }
  return claims;
}

/** Names that claim what a list can contradict, in English, French and German. */
const VEGAN_NAME = /\bv[eé]gan[ea]?\b/i;
const FRAGRANCE_FREE_NAME =
  /\b(?:fragrance|perfume|parfum|scent)[\s-]*free\b|\bunscented\b|\bsans\s+parfum\b|\bohne\s+(?:parf[uü]m|duftstoffe?)\b/i;
const ALCOHOL_FREE_NAME = /\balcohol[\s-]*free\b|\bsans\s+alcool\b|\bohne\s+alkohol\b/i;

/**
 * UV filters only count as actives in products meant for sun protection: those the `sunscreen` filter
 * finds (by their type, or by their name when the type names no kind: an untyped `Mineral Sunscreen`), and
 * any whose name states an SPF (`Daily Moisturiser SPF 30`).
 */
export function isSunProtection(raw: RawProduct): boolean {
  const kinds = productKinds(raw.product_type) | (readsName(raw.product_type) ? nameKinds(raw.name) : 0);
  return (kinds & KIND_BIT.sunscreen) !== 0 || /\bspf\s*\d+/i.test(raw.name);
}

/** Any occlusive makes a formula rich; fixed oils do when they are a large share of it. */
function isRich(ingredients: readonly Ingredient[]): boolean {
  let oils = 0;
  for (const ingredient of ingredients) {
    const rich = ingredientFacts(ingredient.name).cautions['rich-texture'];
    if (rich?.kind === 'occlusive') return true;
    if (rich?.kind === 'oil') oils += 1;
  }
  return oils > 0 && oils >= ingredients.length * RICH_OIL_SHARE;
}

/** Each distinct active counts once, however many times or names it appears under. */
function sumEvidence(actives: readonly Active[]): Partial<Record<Measure, number>> {
  const evidence: Partial<Record<Measure, number>> = {};
  for (const active of new Set(actives)) {
    for (const measure of MEASURES) {
      const weight = active.concerns[measure];
      if (weight !== undefined) evidence[measure] = (evidence[measure] ?? 0) + weight;
    }
  }
  return evidence;
}

function targetsOf(evidence: Partial<Record<Measure, number>>): Measure[] {
  return MEASURES.filter((measure) => (evidence[measure] ?? 0) >= TARGET_EVIDENCE)
    .sort((a, b) => (evidence[b] ?? 0) - (evidence[a] ?? 0) || MEASURES.indexOf(a) - MEASURES.indexOf(b))
    .slice(0, MAX_TARGETS);
}

const DECLARED: Readonly<Record<string, readonly ProductSkinType[]>> = {
  dry: ['dry'],
  oily: ['oily'],
  combination: ['combination'],
  normal: ['normal'],
  sensitive: ['sensitive'],
  all: SKIN_TYPES,
  'all skin types': SKIN_TYPES,
};

/** Between several types in one value: `oily, combination`, `Normal to Dry`, `Oily/Combination`, `&`, `and`. */
const TYPE_SEPARATOR = /\s*(?:[,/&|+;]|\band\b|\bto\b)\s*/;
/** The words around a type in retailers' spellings: `Oily Skin`, `Skin type: dry`, `all skin types`. */
const TYPE_FILLER = /\bskin\b|\btypes?\b|\bfor\b|:|-|_/g;

/**
 * Known declared skin types in a fixed order; unknown words are ignored rather than guessed. A value may
 * hold several types and the words retailers put around them (`Oily Skin`, `Normal to Dry`,
 * `All-Skin-Types`); a value with any other word (`not for dry skin`) declares nothing.
 */
function declaredSkinTypes(declared: readonly string[] | null): ProductSkinType[] {
  const found = new Set<ProductSkinType>();
  for (const value of declared ?? []) {
    for (const part of value.normalize('NFKC').toLowerCase().split(TYPE_SEPARATOR)) {
      const word = part.replace(TYPE_FILLER, ' ').replace(/\s+/g, ' ').trim();
      // Own keys only: a value `constructor` declares nothing (it would read Object's constructor).
      if (Object.hasOwn(DECLARED, word)) for (const type of DECLARED[word]!) found.add(type);
    }
  }
  return [...SKIN_TYPES, 'sensitive' as const].filter((type) => found.has(type));
}

/** Without a declaration: rich formulas suit dry and normal skin, anything lighter suits every type. */
function formulaSkinTypes(rich: boolean): ProductSkinType[] {
  return rich ? ['dry', 'normal'] : [...SKIN_TYPES];
}

/** Labels printed in capitals read better in title case (`SODIUM HYALURONATE` → `Sodium Hyaluronate`). */
function displayLabel(label: string): string {
  if (label !== label.toUpperCase()) return label;
  return label.toLowerCase().replace(/(^|[\s(/-])(\p{L})/gu, (_, before: string, letter: string) => {
    return before + letter.toUpperCase();
  });
}
