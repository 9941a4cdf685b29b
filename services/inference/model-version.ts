/** A model's version as results report it: its name and the SHA-256 of the exact file loaded. */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export function fileVersion(path: string, name = basename(path)): string {
  const digest = createHash('sha256').update(readFileSync(path)).digest('hex');
  return `${name} sha256:${digest.slice(0, 16)}`;
}
