/**
 * Markup a product page leaves in the text a retailer's feed copies from it: character references and tags.
 * The INCI parser reads lists through withoutMarkup; import stores display text (name, brand, product type,
 * country) through readableText, so what is stored is what a person reads and what filters compare.
 */

/** Named character references shops' product pages put in lists (any numeric one is decoded too). */
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '–',
  mdash: '—',
  middot: '·',
  bull: '•',
  reg: '®',
  trade: '™',
  deg: '°',
  micro: 'µ',
  plusmn: '±',
  rsquo: '’',
  lsquo: '‘',
  szlig: 'ß',
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
const ENTITY = /&(?:#(\d{1,7})|#x([\da-f]{1,6})|([a-z]+));/gi;
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
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    const named = ENTITIES[name.toLowerCase()];
    if (named !== undefined) return named;
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
