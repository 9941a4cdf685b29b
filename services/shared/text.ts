/**
 * Text lengths as the published JSON Schemas count them (`maxLength`): in characters (Unicode code
 * points), not UTF-16 units, so a name written outside the Basic Multilingual Plane gets the same room.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A value someone sent, quoted for a message about it: JSON-escaped (a control character or a quote in it
 * cannot forge the message around it) and clipped to 80 characters (a megabyte of name is not echoed back).
 */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
