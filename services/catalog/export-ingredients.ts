/**
 * The ingredient list inside a product description that shops export as HTML (Shopify's `Body (HTML)`,
 * WooCommerce's `Description`): read only where the page sets it apart under its own title — a heading
 * (`<h3>Ingredients</h3>`, or a paragraph holding only a bold title, up to the next heading or titled
 * paragraph), a bold label opening a paragraph or line (`<p><strong>Ingredients:</strong> Aqua, …</p>`, to
 * the paragraph's end), an accordion (`<details><summary>Ingredients</summary>…</details>`) or, when the
 * page has none of these, a line opening with the title and a colon (`Ingredients: Aqua, …`, to its end).
 * Anything less (`made with natural ingredients`, `Key ingredients: …`, a list run into the copy) is no
 * list: a guess could make a product "free from" what it holds.
 */
import { withoutMarkup } from './markup.ts';

/** The title of an ingredient section, and nothing else (`Key Ingredients` is a highlight, not the list). */
const TITLE = String.raw`(?:full\s+|complete\s+)?(?:ingredients?|inci)(?:\s+list)?(?:\s*\(\s*inci\s*\))?`;
const INLINE_OPEN = String.raw`(?:<(?:strong|b|span|em|u)\b[^<>]*>\s*)*`;
const INLINE_CLOSE = String.raw`(?:<\/(?:strong|b|span|em|u)\s*>\s*)*`;
/** Where a titled section ends: the next heading, the next paragraph or line opening with a bold label. */
const NEXT_SECTION = String.raw`<h[1-6]\b|<(?:p|div|li)\b[^<>]*>\s*<(?:strong|b)\b|<br\s*\/?>\s*<(?:strong|b)\b|<\/details\s*>|$`;

const SECTIONS = [
  new RegExp(
    String.raw`<h([1-6])\b[^<>]*>\s*${INLINE_OPEN}${TITLE}\s*:?\s*${INLINE_CLOSE}:?\s*<\/h\1\s*>([\s\S]*?)(?=${NEXT_SECTION})`,
    'gi',
  ),
  new RegExp(
    String.raw`(?:<(?:p|div|li|td)\b[^<>]*>|<br\s*\/?>)\s*<(strong|b)\b[^<>]*>\s*${TITLE}\s*:?\s*<\/\1\s*>\s*:?([\s\S]*?)(?=<\/(?:p|div|li|td)\s*>|<br\s*\/?>\s*<(?:strong|b)\b|$)`,
    'gi',
  ),
  // A paragraph holding only a bold title is a heading: `<p><strong>INGREDIENTS</strong></p><p>Aqua, …</p>`.
  new RegExp(
    String.raw`<(p|div)\b[^<>]*>\s*<(strong|b)\b[^<>]*>\s*${TITLE}\s*:?\s*<\/\2\s*>\s*:?\s*<\/\1\s*>([\s\S]*?)(?=${NEXT_SECTION})`,
    'gi',
  ),
  new RegExp(
    String.raw`<summary\b[^<>]*>\s*${INLINE_OPEN}${TITLE}\s*:?\s*${INLINE_CLOSE}<\/summary\s*>([\s\S]*?)(?=<\/details\s*>|$)`,
    'gi',
  ),
];

const TITLED_LINE = new RegExp(String.raw`^[^\S\n]*${TITLE}[^\S\n]*:[^\S\n]*(\S[^\n]*)$`, 'gim');

/** The list from a description, or why there is none (`reason` null: the description does not speak of one). */
export function ingredientSection(html: string): { list: string } | { reason: string | null } {
  const found = new Set<string>();
  for (const section of SECTIONS) {
    for (const match of html.matchAll(section)) {
      const text = plainText(match.at(-1) ?? '');
      if (text !== '') found.add(text);
    }
  }
  // Else a line or paragraph opening with the title and a colon (`Ingredients: Aqua, …`), to its end.
  if (found.size === 0) {
    for (const match of withoutMarkup(html).matchAll(TITLED_LINE)) found.add(match[1]!.trim());
  }
  if (found.size === 1) return { list: [...found][0]! };
  if (found.size > 1) return { reason: `has ${found.size} different sections headed "Ingredients"` };
  return {
    reason: /ingredient|\binci\b/i.test(html)
      ? 'speaks of ingredients, but sets no list apart under a title "Ingredients"'
      : null,
  };
}

/** A section's text: markup dropped, each line trimmed, blank lines gone. */
function plainText(html: string): string {
  return withoutMarkup(html)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}
