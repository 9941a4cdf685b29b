/**
 * Markup a product page leaves in the text a retailer's feed copies from it: character references and tags.
 * The INCI parser reads lists through withoutMarkup; import stores display text (name, brand, product type,
 * country) through readableText, so what is stored is what a person reads and what filters compare.
 */

/**
 * Named character references shops' product pages put in lists and names: what rich-text editors write by
 * name (TinyMCE's default) beyond the accented letters below, so that a `&hellip;` still says a list was
 * cut short, `&shy;` does not split `Glyc&shy;erin` at its `;`, and `&beta;-Glucan` is beta-glucan. Looked
 * up as written, then in lower case. (Any numeric reference is decoded too.)
 */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  shy: '\u00ad',
  zwnj: '\u200c',
  zwj: '\u200d',
  ndash: '–',
  mdash: '—',
  minus: '−',
  hellip: '…',
  middot: '·',
  bull: '•',
  dagger: '†',
  Dagger: '‡',
  sect: '§',
  para: '¶',
  reg: '®',
  trade: '™',
  copy: '©',
  deg: '°',
  micro: 'µ',
  plusmn: '±',
  times: '×',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  sup1: '¹',
  sup2: '²',
  sup3: '³',
  ordf: 'ª',
  ordm: 'º',
  rsquo: '’',
  lsquo: '‘',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  lsaquo: '‹',
  rsaquo: '›',
  iexcl: '¡',
  iquest: '¿',
  euro: '€',
  pound: '£',
  cent: '¢',
  yen: '¥',
  szlig: 'ß',
  aelig: 'æ',
  AElig: 'Æ',
  oelig: 'œ',
  OElig: 'Œ',
  oslash: 'ø',
  Oslash: 'Ø',
  eth: 'ð',
  thorn: 'þ',
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  omega: 'ω',
};
const ACCENTS: Readonly<Record<string, string>> = {
  acute: '\u0301',
  grave: '\u0300',
  circ: '\u0302',
  uml: '\u0308',
  tilde: '\u0303',
  cedil: '\u0327',
  ring: '\u030a',
};
/** What a numeric reference may name but no text holds: controls but tab and line breaks, direction
 * embeddings, overrides and isolates, surrogates, and U+0000. */
const UNREAD = /^(?![\t\n\r])[\p{Cc}\p{Cs}\u202a-\u202e\u2066-\u2069]$/u;
const ENTITY = /&(?:#(\d{1,7})|#x([\da-f]{1,6})|([a-z][a-z\d]*));/gi;
/** A tag that ends a line (`<br>`, `</p>`, `<li>`…), and any other tag (`<b>`, `<span class=…>`). */
const BLOCK_TAG = /<\/?(?:br|p|div|li|ul|ol|tr|td|h\d)\b[^<>]*>/gi;
const TAG = /<\/?[a-z][^<>]*>/gi;
/** A script or style element: its content is code, never text a person reads. */
const CODE_ELEMENT = /<(script|style)\b[^<>]*>[\s\S]*?<\/\1\s*>/gi;

/**
 * A list copied from a product page: character references decoded (`&amp;`, `&eacute;`, `&#233;`, and
 * `&lt;br&gt;` from pages escaped twice), then tags dropped, those that end a line kept as a line break,
 * so `<p>…, Parfum</p>` still lists fragrance; a `<script>` or `<style>` element goes with its content. A
 * `<` that opens no tag (`< 1%`) stays.
 */
export function withoutMarkup(text: string): string {
  if (!text.includes('&') && !text.includes('<')) return text;
  const decoded = text.replace(ENTITY, (whole, decimal: string, hex: string, name: string) => {
    if (decimal !== undefined || hex !== undefined) {
      const code = Number.parseInt(decimal ?? hex, decimal !== undefined ? 10 : 16);
      if (code > 0x10ffff) return whole;
      // A reference to a control, a direction override, half a surrogate pair or U+0000 is no character
      // a person reads: dropped, as the same characters given raw are (catalog-schema.ts).
      const character = String.fromCodePoint(code);
      return UNREAD.test(character) ? '' : character;
    }
    // Own keys only: `&constructor;` names no character (it would read Object's constructor).
    const named = [name, name.toLowerCase()].find((key) => Object.hasOwn(ENTITIES, key));
    if (named !== undefined) return ENTITIES[named]!;
    const accent = /^([a-z])(acute|grave|circ|uml|tilde|cedil|ring)$/i.exec(name);
    return accent ? `${accent[1]}${ACCENTS[accent[2]!.toLowerCase()]}` : whole;
  });
  return decoded.replace(CODE_ELEMENT, ' ').replace(BLOCK_TAG, '\n').replace(TAG, '');
}

/**
 * A one-line display field as a person reads it: references decoded once (`&amp;amp;` is `&amp;`), tags
 * dropped, the spaces they leave folded, accents composed (`&eacute;` is `é`). Text without `&` or `<` is
 * returned as given.
 */
export function readableText(text: string): string {
  const plain = withoutMarkup(text);
  return plain === text ? text : plain.replace(/\s+/g, ' ').trim().normalize('NFC');
}
