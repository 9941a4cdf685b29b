/**
 * Text in an ingredient field that names ingredients without listing the formula: free-from claims and
 * key-ingredient highlights. Shops put both in the ingredient field, before or after the list.
 *
 * A free-from claim (`Free from: Fragrance, Alcohol.`, `Formulated without parabens, sulfates and
 * fragrance`, `Does not contain fragrance or alcohol`, `Sans parfum, sans alcool`, `0% Alcohol`) names what
 * the product does NOT hold: read as ingredients it would flag the very fragrance and alcohol the product is
 * free of. A key-ingredient highlight (`Key Ingredients: Niacinamide, Zinc PCA`) names a few of its
 * ingredients: read as the list it would make the product free of everything it does not name.
 */

/** Where a sentence starts: the field's start, a period (not a decimal point), a colon or a line break. */
const SENTENCE_START = String.raw`(^|(?<!\d)\.\s*|[:\n]\s*)`;
/** Where a list entry starts: a comma (not a decimal comma: `7,0% Octinoxate`) or a semicolon. */
const ENTRY_START = String.raw`((?<!\d),\s*|;\s*)`;
const CLAIM = String.raw`(?:(?:formulated|made)\s+)?(?:(?:free\s+(?:from|of)|without|does\s+not\s+contain|contains\s+no|sans|ohne|frei\s+von|senza|sin)\b|0\s*%(?=\s*\p{L}))`;
/** To the end of the sentence: a period that is not a decimal point, a line break, or an `Ingredients:` heading. */
const TO_SENTENCE_END = String.raw`(?:(?!\b(?:ingredients?|ingrédients|inci)\s*[:：])[^.\n]|\.\d)*(?:\.(?!\d)|\n|$)`;

/**
 * What free-from claims name: classes of ingredients (`Parabens`, `Sulfates`, `Perfume`, `Alcohol`,
 * `Mineral Oil`), in English, French and German. `Parabens` or `Sulfates` is never an entry of a formula.
 */
const CLAIMED = String.raw`(?:(?:artificial|synthetic|added|drying|denatured|harsh|mineral|essential)\s+)?(?:fragrances?|perfumes?|parfums?|alcohols?|alcools?|alkohol|parab[eè]ne?s?|sul(?:f|ph)ates?|silicones?|phthalates?|dyes?|colou?r(?:ant)?s?|oils?|soaps?|gluten|preservatives?|duftstoffe?|mineral[oö]le?)`;
const AND = '(?:or|and|nor|&|ou|et|oder|und)';
/**
 * A claim entry that enumerates across commas: `Without Perfume, Alcohol or Parabens`. The conjunction
 * before its last item ends the enumeration, and every item after the first entry must be a class a claim
 * names; otherwise (`Without Perfume, Alcohol, Niacinamide`, `…, Sodium Tallowate or Sodium Palmitate`)
 * what follows the claim entry stays listed: an ingredient a product may hold is never dropped on a guess.
 */
const ENUMERATION = String.raw`[^,;.\n]*?(?:,\s*${CLAIMED})+,?\s+${AND}\s+${CLAIMED}(?=\s*(?:[,;.\n]|$))`;

/**
 * A claim that starts a sentence runs to its end (`Formulated without parabens, sulfates and fragrance.`);
 * one that is an entry of the list is that entry (`Aqua, Without Perfume, Niacinamide`), or the enumeration
 * it starts (`Aqua, Without Perfume, Alcohol or Parabens, Niacinamide`), unless a colon opens a list of its
 * own (`…, Free from: Fragrance, Alcohol.`).
 */
const FREE_FROM = [
  new RegExp(`${SENTENCE_START}${CLAIM}(?:\\s*[:：])?\\s*${TO_SENTENCE_END}`, 'giu'),
  new RegExp(`${ENTRY_START}${CLAIM}(?:\\s*[:：]${TO_SENTENCE_END}|${ENUMERATION}|[^,;.\\n]*)`, 'giu'),
];

const CLAIM_WORD = /free|without|contain|sans|ohne|frei|senza|\bsin\b|0\s*%/i;

/** A key-ingredient heading; the highlight runs to the next heading or the end of the field. */
const KEY_HEADING =
  /\b(?:key|hero|star|featured|highlighted|spotlight)\s+(?:active\s+)?ingredients?\s*(?:[:：]|[-–—]\s)/i;
/** Any heading that can end a highlight (parse.ts's HEADING, or another highlight). */
const NEXT_HEADING =
  /\b(?:(?:full|complete)\s+)?(?:(?:in)?active\s+)?(?:ingredients?|ingrédients|inci|composition)(?:\s*list)?\s*(?:[:：]|[-–—]\s)/i;

export interface WithoutClaims {
  readonly text: string;
  /** The field held a key-ingredient highlight and nothing else that could be a list. */
  readonly keyOnly: boolean;
  /** The claims and highlights left out, for the reading's note. */
  readonly left: string[];
}

/** The field less its free-from claims and key-ingredient highlights. */
export function withoutClaims(text: string): WithoutClaims {
  let rest = text;
  let kept = '';
  let highlighted = false;
  const left: string[] = [];
  for (let key = KEY_HEADING.exec(rest); key !== null; key = KEY_HEADING.exec(rest)) {
    highlighted = true;
    kept += `${rest.slice(0, key.index)}\n`;
    const after = rest.slice(key.index + key[0].length);
    const next = NEXT_HEADING.exec(after);
    left.push(key[0] + (next === null ? after : after.slice(0, next.index)));
    rest = next === null ? '' : after.slice(next.index);
  }
  kept += rest;
  // Most lists hold no claim: the word test is far cheaper than the claims' patterns.
  for (const claims of CLAIM_WORD.test(kept) ? FREE_FROM : []) {
    kept = kept.replace(claims, (claim: string, start: string) => {
      left.push(claim.slice(start.length));
      return start;
    });
  }
  return {
    text: kept,
    keyOnly: highlighted && !/\p{L}/u.test(kept),
    left: left.map((claim) => claim.replace(/\s+/g, ' ').trim()).filter((claim) => claim !== ''),
  };
}
