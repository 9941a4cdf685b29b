/**
 * Which of the spec's product types (the `product_type` filter's enumeration) a catalog's free-text type
 * names. Retailers do not write the enumeration: they write `Moisturiser`, `Face Moisturizer`, `Sunscreen
 * SPF 50`, `Sun Cream`, `Eye Cream`, `Spot Treatment`, `Face Wash`, `Exfoliant`, `Sleeping Mask`, in
 * British or American spelling, in capitals, sometimes in French or German. A filter for `moisturizer`
 * must find all of those, and never an eye cream, a sun cream or a cleansing cream.
 *
 * A type may name two kinds (`Moisturiser SPF 30` is both a moisturizer and a sunscreen), so the answer is
 * a bit set. Words are matched on word boundaries after folding accents, case and separators; German
 * compounds are matched on their last part (`Gesichtscreme`, `Sonnencreme`, `Augencreme`).
 */
import { PRODUCT_TYPES } from '../match/match-input.ts';
import { folded } from './text-key.ts';

export type ProductKind = (typeof PRODUCT_TYPES)[number];

/** The bit of each kind in a kind set. */
export const KIND_BIT: Readonly<Record<ProductKind, number>> = Object.fromEntries(
  PRODUCT_TYPES.map((kind, i) => [kind, 1 << i]),
) as Record<ProductKind, number>;

/**
 * Words that name a kind whatever else the type says. Each is a regular expression over the folded type
 * (lower case, no accents, one space between words), bounded by `\b` so that a word matches only whole
 * (`sun` never matches `sunflower`); German compounds end with the kind's word.
 */
const NAMING: readonly (readonly [ProductKind, RegExp])[] = [
  [
    'sunscreen',
    /\b(?:sun ?screens?|sun ?blocks?|sun ?(?:creams?|lotions?|milks?|fluids?|sticks?|sprays?|gels?|care|protection|protect)|spf ?\d*|uv ?(?:protection|defen[cs]e|fluid)|solaires?|ecran solaire|sonnen\w*)\b/,
  ],
  ['eye_care', /\b(?:eyes?|under ?eyes?|yeux|augen\w*)\b|\Baugen/],
  [
    'cleanser',
    /\b(?:cleansers?|cleansing|(?:face|facial) ?wash(?:es)?|wash|micellar|make ?up removers?|removers?|nettoyants?|demaquillants?|reinigung\w*)\b|\Breiniger\b/,
  ],
  ['toner', /\b(?:toners?|tonics?|toning|tonique|gesichtswasser)\b/],
  ['exfoliator', /\b(?:exfolia\w*|peels?(?! off)|peeling|scrubs?|gommages?)\b/],
  // Essences, ampoules and boosters are the concentrated leave-on step after a toner: one shelf with serums
  // at retailers that sell them (Olive Young's `Essence/Serum/Ampoule`).
  ['serum', /\b(?:serums?|ampoules?|essences?|boosters?|seren)\b/],
  ['mask', /\b(?:masks?|masques?|maske[n]?)\b|\Bmaske\b/],
  ['treatment', /\b(?:treatments?|spot|spots|pimple patch(?:es)?|soins? cibles?)\b/],
  ['moisturizer', /\b(?:moisturi[sz]ers?|hydratante?s?|feuchtigkeits\w*)\b/],
];

/**
 * A face mist (`Face Mist`, `Hydrating Mist`, `Brume`) is a toner sprayed on when no other kind is named
 * (`Sun Mist SPF 30` is a sunscreen); a makeup setting or fixing mist, or a shaving cream, is no face care.
 */
const MIST = /\b(?:mists?|brumes?)\b/;
const NOT_SKIN_CARE = /\b(?:setting|fixing)\b|shav/;

/**
 * Words that say moisturizer only when no other kind is named: a `Cream` or `Face Lotion` is a
 * moisturizer, an `Eye Cream`, a `Sun Cream`, a `Cleansing Balm` or a `Treatment Lotion` is not.
 * An SPF alone does not take a day cream out of the moisturizers (`Day Cream SPF 15`).
 */
const MOISTURIZING =
  /\b(?:creams?|cremes?|lotions?|balms?|baumes?|emulsions?|gel ?creams?|(?:face|facial) oils?|huiles? visage|gesichtsols?|moisturi[sz]ing|hydrating|day|night)\b|\B(?:creme|cream)\b/;
const SPF_ONLY = /\bspf ?\d*\b/;
/** A cream for somewhere else than the face is no face moisturizer (`Lip Balm`, `Hand Cream`, `Body Lotion`). */
const NOT_FACE = /\b(?:body|hands?|foot|feet|lips?|hair|nails?|cuticles?|tattoo|baby)\b/;

/** The catalog's one folding (text-key.ts: case, accents, punctuation), then every run of separators one space. */
const fold = (type: string) =>
  folded(type)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/** The kinds a catalog's product type names, as a bit set of KIND_BIT; 0 for none (or no type). */
export function productKinds(productType: string | null | undefined): number {
  if (!productType) return 0;
  const text = fold(productType);
  let kinds = readKinds(text, NAMING, MOISTURIZING);
  // The enumeration's own spelling (`eye_care`, `EYE CARE`) always names its kind.
  const own = (PRODUCT_TYPES as readonly string[]).indexOf(text.replace(/ /g, '_'));
  if (own >= 0) kinds |= 1 << own;
  return kinds;
}

/**
 * Whether a product's name is read for its kinds: its type names none (`Gel`, `Skincare`, empty or
 * missing), and does not say the product is for somewhere else than the face (`Lip Balm`, `Hand Cream`).
 */
export function readsName(productType: string | null | undefined): boolean {
  return !productType || (productKinds(productType) === 0 && !NOT_FACE.test(fold(productType)));
}

/**
 * The kinds a product's name clearly says (`Ultra Facial Cream`, `Hydrating Face Mist`, `Vitamin C
 * Serum`, `Gentle Foaming Cleanser`), for a product whose type says none (readsName). A name says more
 * than a kind, so only the words that name one whatever surrounds them count: not `Day`, `Night`,
 * `Hydrating` or `Moisturizing` (`Advanced Night Repair` is a serum), nor `Spot` (`Dark Spot Corrector`).
 */
export function nameKinds(name: string): number {
  const text = fold(name);
  // A name for lips, hands, body or hair (`Lip Sleeping Mask`, `Hand Wash`) names no face product.
  return NOT_FACE.test(text) ? 0 : readKinds(text, NAME_NAMING, NAME_MOISTURIZING);
}

const NAME_NAMING = NAMING.map(([kind, words]) =>
  kind === 'treatment'
    ? (['treatment', /\b(?:treatments?|pimple patch(?:es)?|soins? cibles?)\b/] as const)
    : ([kind, words] as const),
);
const NAME_MOISTURIZING =
  /\b(?:creams?|cremes?|lotions?|balms?|baumes?|emulsions?|gel ?creams?|(?:face|facial) oils?|huiles? visage|gesichtsols?)\b|\B(?:creme|cream)\b/;

function readKinds(text: string, naming: typeof NAMING, moisturizing: RegExp): number {
  let kinds = 0;
  for (const [kind, words] of naming) if (words.test(text)) kinds |= KIND_BIT[kind];
  // An eye serum, eye cream or eye treatment is eye care, not what a filter for a face serum means.
  if (kinds & KIND_BIT.eye_care) kinds &= ~(KIND_BIT.serum | KIND_BIT.treatment | KIND_BIT.moisturizer);
  const face = !NOT_FACE.test(text) && !NOT_SKIN_CARE.test(text);
  if (kinds === 0 && face && MIST.test(text)) return KIND_BIT.toner;
  // Other kinds than an SPF-only sunscreen keep a generic cream out of the moisturizers.
  const spfOnly = kinds === KIND_BIT.sunscreen && SPF_ONLY.test(text) && !/\bsun|solaire|sonnen/.test(text);
  if ((kinds === 0 || spfOnly) && face && moisturizing.test(text)) kinds |= KIND_BIT.moisturizer;
  return kinds;
}
