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
  ['eye_care', /\b(?:eyes?|under ?eyes?|yeux|augen\w*|\w+augen\w*)\b/],
  [
    'cleanser',
    /\b(?:cleansers?|cleansing|(?:face|facial) ?wash(?:es)?|wash|micellar|make ?up removers?|removers?|nettoyants?|demaquillants?|reinigung\w*|\w+reiniger)\b/,
  ],
  ['toner', /\b(?:toners?|tonics?|toning|tonique|gesichtswasser)\b/],
  ['exfoliator', /\b(?:exfolia\w*|peels?(?! off)|peeling|scrubs?|gommages?)\b/],
  ['serum', /\b(?:serums?|ampoules?|seren)\b/],
  ['mask', /\b(?:masks?|masques?|maske[n]?|\w+maske)\b/],
  ['treatment', /\b(?:treatments?|spot|spots|pimple patch(?:es)?|soins? cibles?)\b/],
  ['moisturizer', /\b(?:moisturi[sz]ers?|hydratante?s?|feuchtigkeits\w*)\b/],
];

/**
 * Words that say moisturizer only when no other kind is named: a `Cream` or `Face Lotion` is a
 * moisturizer, an `Eye Cream`, a `Sun Cream`, a `Cleansing Balm` or a `Treatment Lotion` is not.
 * An SPF alone does not take a day cream out of the moisturizers (`Day Cream SPF 15`).
 */
const MOISTURIZING =
  /\b(?:creams?|cremes?|lotions?|balms?|baumes?|emulsions?|gel ?creams?|moisturi[sz]ing|hydrating|day|night|\w+creme|\w+cream)\b/;
const SPF_ONLY = /\bspf ?\d*\b/;
/** A cream for somewhere else than the face is no face moisturizer (`Lip Balm`, `Hand Cream`, `Body Lotion`). */
const NOT_FACE = /\b(?:body|hands?|foot|feet|lips?|hair|nails?|cuticles?|tattoo|baby)\b/;

/** NFKD without combining marks, lower case, every run of separators one space. */
function fold(type: string): string {
  return type
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The kinds a catalog's product type names, as a bit set of KIND_BIT; 0 for none (or no type). */
export function productKinds(productType: string | null | undefined): number {
  if (!productType) return 0;
  const text = fold(productType);
  let kinds = 0;
  for (const [kind, words] of NAMING) if (words.test(text)) kinds |= KIND_BIT[kind];
  // An eye serum, eye cream or eye treatment is eye care, not what a filter for a face serum means.
  if (kinds & KIND_BIT.eye_care) kinds &= ~(KIND_BIT.serum | KIND_BIT.treatment | KIND_BIT.moisturizer);
  // Other kinds than an SPF-only sunscreen keep a generic cream out of the moisturizers.
  const spfOnly = kinds === KIND_BIT.sunscreen && SPF_ONLY.test(text) && !/\bsun|solaire|sonnen/.test(text);
  if ((kinds === 0 || spfOnly) && MOISTURIZING.test(text) && !NOT_FACE.test(text)) {
    kinds |= KIND_BIT.moisturizer;
  }
  // The enumeration's own spelling (`eye_care`, `EYE CARE`) always names its kind.
  const own = (PRODUCT_TYPES as readonly string[]).indexOf(text.replace(/ /g, '_'));
  if (own >= 0) kinds |= 1 << own;
  return kinds;
}
