/**
 * Tool errors as clients see them: `isError: true` with `{"error": {"code", "message", …}}` as
 * `structuredContent` and the same JSON as text. Core's ErrorInfo reason becomes the code unchanged when
 * it is one of the tools' codes (TOOL_ERROR_CODES); any other is a fault, answered `unavailable`.
 */
import { ConnectError } from '@connectrpc/connect';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { ERROR_DOMAIN, type ErrorReason } from '../../services/shared/errors.ts';

export class ToolError extends Error {
  readonly code: ErrorReason;
  readonly field: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorReason, message: string, field?: string, retryAfterSeconds?: number) {
    super(message);
    this.code = code;
    this.field = field;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function toolResult(structuredContent: Record<string, unknown>, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
    structuredContent,
    ...(isError ? { isError: true } : {}),
  };
}

export function errorResult(error: ToolError): CallToolResult {
  const body: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.field) body.field = error.field;
  if (error.retryAfterSeconds !== undefined) body.retry_after_seconds = error.retryAfterSeconds;
  return toolResult({ error: body }, true);
}

/** Seconds an agent should wait before calling again after a server fault. */
export const FAULT_RETRY_AFTER_SECONDS = 5;

/**
 * A fault on the service's side (core down or too slow, an unexpected error) as a tool error the agent's
 * model can read and act on: `unavailable`, with when to try again and the request id the fault was logged
 * under. Never the fault's own text.
 */
export function unavailable(requestId: string): ToolError {
  return new ToolError(
    'unavailable',
    `The service could not complete this call; try again in ${FAULT_RETRY_AFTER_SECONDS} s (request ${requestId}).`,
    undefined,
    FAULT_RETRY_AFTER_SECONDS,
  );
}

/** The codes a tool error carries, as every tool's outputSchema lists them: the spec's, and unavailable. */
export const TOOL_ERROR_CODES: readonly ErrorReason[] = [
  'invalid_input',
  'scan_required',
  'scan_not_ready',
  'scan_not_uploaded',
  'not_found',
  'catalog_unavailable',
  'rate_limited',
  'admissions_paused',
  'unavailable',
];

function isToolErrorCode(reason: string): reason is ErrorReason {
  return (TOOL_ERROR_CODES as readonly string[]).includes(reason);
}

/**
 * A core error carrying one of the tools' codes, as a ToolError; anything else is not for the client. A
 * reason of the person's pages (upload_closed, consent_required, …) reaching a tool is a fault: passed on,
 * it would break the outputSchema the SDK clients check, and the agent would get no answer at all.
 */
export function fromCoreError(err: unknown): ToolError | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  for (const info of err.findDetails(ErrorInfoSchema)) {
    if (info.domain === ERROR_DOMAIN && isToolErrorCode(info.reason)) {
      const wait =
        retryAfter(info.metadata) ?? (info.reason === 'unavailable' ? FAULT_RETRY_AFTER_SECONDS : undefined);
      return new ToolError(info.reason, err.rawMessage, info.metadata.field, wait);
    }
  }
  return undefined;
}

/**
 * Core's `retry_after_seconds` (a database outage's `unavailable`), when it is a count of seconds. An
 * `unavailable` naming none (core still starting) gets the fault's wait: every `unavailable` says how long.
 */
function retryAfter(metadata: Record<string, string>): number | undefined {
  const seconds = Number(metadata.retry_after_seconds);
  return Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}

/** The output schema branch every tool shares for its errors. */
export const ERROR_OUTPUT_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: TOOL_ERROR_CODES },
        message: { type: 'string' },
        field: { type: 'string', description: 'The argument at fault, for invalid_input.' },
        retry_after_seconds: {
          type: 'integer',
          minimum: 0,
          description: 'Seconds to wait before calling again (rate_limited, unavailable).',
        },
      },
      required: ['code', 'message'],
      additionalProperties: false,
    },
  },
  required: ['error'],
  additionalProperties: false,
} as const;
