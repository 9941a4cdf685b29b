/**
 * The façade's own argument checks, with the spec's codes: a missing `run_id` is `scan_required`; an
 * unknown key, any value outside the input schema, required text left blank or text with a NUL character
 * is `invalid_input`, naming the field at fault.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isSecretShaped, quoteName } from '../../services/shared/text.ts';
import { ToolError } from './tool-errors.ts';

const ajv = new Ajv({ allErrors: false, strict: true });

/**
 * A run_id: a UUID in either case. A `pattern`, not `format: uuid`: clients that hand the input schemas to
 * Gemini's function declarations are refused whole over any `format` but `enum` and `date-time` (the
 * request fails, and every other tool with it), and a `pattern` checks the same.
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export type InputSchema = Record<string, unknown> & { type: 'object' };

export function compileInput(schema: InputSchema): (args: unknown) => Record<string, unknown> {
  const validate: ValidateFunction = ajv.compile(schema);
  const required: readonly unknown[] = Array.isArray(schema.required) ? schema.required : [];
  const needsRunId = required.includes('run_id');
  // Named with every unknown argument, so that an agent can correct the call in one step.
  const known = Object.keys((schema.properties as object | undefined) ?? {});
  const takes =
    known.length > 0 ? `The arguments are: ${known.join(', ')}.` : 'This tool takes no arguments.';
  const nonBlank = nonBlankArguments(schema);
  return (args) => {
    const input = args ?? {};
    if (needsRunId && isObject(input) && !('run_id' in input)) {
      throw new ToolError(
        'scan_required',
        'run_id is required: pass the run_id that start_skin_scan returned.',
      );
    }
    const blank = isObject(input) ? nonBlank.find((key) => isBlank(input[key])) : undefined;
    if (blank !== undefined) {
      throw new ToolError('invalid_input', `Argument "${blank}" must not be empty or only spaces.`, blank);
    }
    if (!validate(input)) throw invalidInput(validate.errors?.[0], takes, input, required);
    const valid = input as Record<string, unknown>; // every input schema is an object's
    const withNul = Object.keys(valid).find((key) => holdsNul(valid[key]));
    if (withNul !== undefined) {
      throw new ToolError(
        'invalid_input',
        `Argument "${withNul}" must not contain the NUL character (U+0000).`,
        withNul,
      );
    }
    return valid;
  };
}

function invalidInput(
  error: ErrorObject | undefined,
  takes: string,
  input: unknown,
  required: readonly unknown[],
): ToolError {
  if (!error) return new ToolError('invalid_input', 'The arguments are not valid.');
  if (error.keyword === 'additionalProperties') {
    const field = String(error.params.additionalProperty);
    const named = isSecretShaped(field) ? undefined : field;
    return new ToolError('invalid_input', `Unknown argument ${quoteName(field)}. ${takes}`, named);
  }
  if (error.keyword === 'required') {
    const field = String(error.params.missingProperty);
    return new ToolError('invalid_input', `Missing argument "${field}".`, field);
  }
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (!field) return new ToolError('invalid_input', 'The arguments must be an object.');
  if (error.keyword === 'enum') {
    // ajv says only "must be equal to one of the allowed values": the agent needs to know which.
    const allowed = (error.params.allowedValues as unknown[]).map(String).join(', ');
    return new ToolError('invalid_input', `Argument "${field}" must be one of: ${allowed}.`, field);
  }
  if (error.keyword === 'pattern' && error.params.pattern === UUID_PATTERN) {
    return new ToolError('invalid_input', `Argument "${field}" must be a UUID: a scan’s run_id.`, field);
  }
  if (error.keyword === 'type' && isObject(input) && input[field] === null && !required.includes(field)) {
    // Strict function-calling clients send null for an optional argument they have no value for: the
    // schema has no null, so say how to ask for nothing instead.
    return new ToolError(
      'invalid_input',
      `Argument "${field}" ${error.message ?? 'is not valid'}, not null: leave the argument out for no filter ` +
        '(or its default).',
      field,
    );
  }
  return new ToolError('invalid_input', `Argument "${field}" ${error.message ?? 'is not valid'}.`, field);
}

/**
 * The text arguments that must say something (minLength 1: a source, a product_id, a name, a page_token).
 * Empty or only spaces is said to be blank, never "1 to 100 characters": an agent told about a length
 * would resend the same spaces, or pad them.
 */
function nonBlankArguments(schema: InputSchema): string[] {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown; minLength?: unknown }>;
  return Object.keys(properties).filter(
    (key) => properties[key]!.type === 'string' && Number(properties[key]!.minLength) >= 1,
  );
}

function isBlank(value: unknown): boolean {
  return typeof value === 'string' && value.trim() === '';
}

/**
 * Text the database cannot hold. Core refuses it too, but names its own request field (recommend_products'
 * brand and country travel inside core's `filter`): here the argument is named as the agent sent it.
 */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return Array.isArray(value) && value.some(holdsNul);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
