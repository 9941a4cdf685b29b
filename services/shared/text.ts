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

/** 64 hex characters in either case (a scan token, a browser secret), a JSON Web Token, a bearer credential. */
const SECRET_SHAPED = /^(?:[a-f0-9]{64}|eyJ[\w-]{8,}\.[\w-]{8,}\..*|Bearer\s.*)$/is;

/** Whether a name someone sent is shaped like a secret. */
export function isSecretShaped(value: string): boolean {
  return SECRET_SHAPED.test(value.trim());
}

/**
 * A name someone sent (an argument's key, a tool's name), quoted as `quote` does — unless it is shaped like
 * a secret (a client that mixed up a call): clients log and show error messages, so that is not repeated.
 */
export function quoteName(value: string): string {
  return isSecretShaped(value) ? '(its name is shaped like a secret: not repeated here)' : quote(value);
}
