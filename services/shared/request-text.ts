/**
 * Text PostgreSQL cannot hold. A NUL character (U+0000) is valid in a protobuf string but not in PostgreSQL
 * `text` nor in a `jsonb` string or key: a request carrying one failed at the database as an internal
 * error, which told the caller (and through MCP, the agent) to try again later with the same request.
 * Every request is checked here once, before any service reads it, and refused as `invalid_input` naming
 * the field — whatever the service would have done with the text (stored it, searched for it, echoed it).
 */
import type { DescMessage } from '@bufbuild/protobuf';
import type { Interceptor } from '@connectrpc/connect';
import { serviceError } from './errors.ts';

const NUL = '\u0000';

export function refuseNulText(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const field = fieldWithNul(req.method.input, req.message);
      if (field !== undefined) {
        throw serviceError('invalid_input', `${field} must not contain the NUL character (U+0000).`, {
          field,
        });
      }
    }
    return next(req);
  };
}

/**
 * The request field (its proto name) holding a NUL anywhere inside it: in a string, a repeated or map
 * value or key, a nested message, or a google.protobuf.Struct (a plain JSON object in the message).
 */
export function fieldWithNul(schema: DescMessage, message: object): string | undefined {
  for (const field of schema.fields) {
    const value = (message as Record<string, unknown>)[field.localName];
    if (holdsNul(value)) return field.name;
  }
  for (const oneof of schema.oneofs) {
    const chosen = (message as Record<string, { case?: string; value?: unknown }>)[oneof.localName];
    const field = oneof.fields.find((f) => f.localName === chosen?.case);
    if (field && holdsNul(chosen?.value)) return field.name;
  }
  return undefined;
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(NUL);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return false;
  if (Array.isArray(value)) return value.some(holdsNul);
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes(NUL) || holdsNul(inner)) return true;
  }
  return false;
}
