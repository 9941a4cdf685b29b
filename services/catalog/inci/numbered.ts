/**
 * Numbered lists: `1. Water 2. Glycerin 3. Niacinamide`, `1) Aqua, 2) Glycerin`, or one entry a line with a
 * leading number (`1 Aqua⏎2 Glycerin`). Left in place, the numbers become part of the names (`water 2`,
 * `1 aqua`), which are then unknown: actives lost, flags missed.
 *
 * Numbers are markers only as a counted run: `1`, `2`, `3`, … in order, each at the start of the field, a
 * line or an entry (after a space, comma, semicolon or colon), followed by `.` or `)` and a name — or, at
 * the start of a line, by a space and a name. The run must start with 1 at the start of the field, a line
 * or after a colon (`Ingredients: 1. Aqua …`), and hold at least two markers. So numbers that belong to
 * names stay: `CI 77891`, `Palmitoyl Tripeptide-1`, `1,2-Hexanediol`, `PEG-100 Stearate`, `Polysorbate
 * 20`, `Vitamin B3`, `10.5%` (a digit after the point), as does a name ending in a number right before a
 * marker (`1. Polysorbate 20 2. Glycerin`: `20` is not the next count).
 */

/**
 * A candidate marker: its number, then `.` or `)` and a name or a number-led name after a space, or (group
 * 3) only spaces and a name.
 */
const MARKER = /(?<=^|[\s,;:])\(?(\d{1,3})(?:\s?([.)])(?:\s*(?=\p{L})|\s+(?=\d))|(\s+)(?=\p{L}))/gu;

/** Where a run may start: the field's start, a line start, or after a colon (spaces between). */
const RUN_START = /(?:^|[\n:])\s*\(?$/;
/** Where a marker without `.` or `)` may stand: the start of a line. */
const LINE_START = /(?:^|\n)[ \t]*$/;

/** The field with the markers of a numbered list replaced by a separator; unchanged when it is not one. */
export function withoutNumbering(text: string): string {
  // Most lists have no `1` that could open a run: no 1 at an entry start followed by `.`, `)` or a space.
  if (!/(?:^|[\s,;:(])1\s?[.)\s]/.test(text)) return text;
  const markers: { start: number; end: number }[] = [];
  for (const match of text.matchAll(MARKER)) {
    const count = Number(match[1]);
    if (count !== markers.length + 1) continue;
    const before = text.slice(0, match.index);
    if (match[3] !== undefined && !LINE_START.test(before)) continue;
    if (count === 1 && !RUN_START.test(before)) continue;
    markers.push({ start: match.index, end: match.index + match[0].length });
  }
  if (markers.length < 2) return text;
  let plain = '';
  let from = 0;
  for (const { start, end } of markers) {
    plain += `${text.slice(from, start)}, `;
    from = end;
  }
  return plain + text.slice(from);
}
