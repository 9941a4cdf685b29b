/**
 * Text lengths as the published JSON Schemas count them (`maxLength`): in characters (Unicode code
 * points), not UTF-16 units, so a name written outside the Basic Multilingual Plane gets the same room.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
