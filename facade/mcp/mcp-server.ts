/**
 * The façade's MCP server: one SDK `Server` for the life of the process, listing the tools and serving
 * calls. Arguments are checked here with the spec's codes before core is called; core's errors come back
 * as tool errors with the same codes.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../services/shared/logger.ts';
import { registerTools } from '../../services/shared/metrics.ts';
import { currentRequestId, REQUEST_ID_HEADER } from '../../services/shared/telemetry.ts';
import { quoteName } from '../../services/shared/text.ts';
import type { ToolDefinition } from './tool-definition.ts';
import {
  ERROR_OUTPUT_SCHEMA,
  errorResult,
  fromCoreError,
  ToolError,
  toolResult,
  unavailable,
} from './tool-errors.ts';
import { compileInput } from './validate.ts';

export const INSTRUCTIONS = [
  'skinmatch runs a cosmetic facial skin-analysis scan for a person and matches skincare products to it.',
  '1. Call start_skin_scan. Give upload_url to the person; they take or upload the photo themselves in a',
  '   browser. Never upload a photo yourself.',
  '2. Poll get_skin_scan with run_id and access_token, waiting retry_after_seconds, and follow next_action.',
  '3. When next_action is recommend_products, call recommend_products once per scan. none: nothing is left',
  '   to do with the scan; start_new_scan: it can take no new photo (start another only if the person asks).',
  '   Once the match is used, get_skin_scan shows the products it returned in used_match: show those again',
  '   when the person asks for their matches, even if the recommend_products answer never reached you.',
  'access_token is a secret: never log it and never show it to the person. Never infer a skin type from the',
  'scan; pass skin_type only when the person stated it. Results are cosmetic estimates, not a diagnosis.',
].join('\n');

/** Where the tools of `/mcp/account` are, for a call naming one of them on `/mcp`. */
const ACCOUNT_ONLY = 'It is served on /mcp/account, after the person signs in (OAuth).';

/**
 * `accountOnly`: the names of tools served only on /mcp/account (given for /mcp). `coreTimeoutMs`: the
 * façade's deadline on each call to core (CORE_TIMEOUT_MS, applied by the transport), named in the warning
 * of a call that passes it.
 */
export function buildServer(
  tools: readonly ToolDefinition[],
  logger: Logger,
  instructions = INSTRUCTIONS,
  accountOnly: readonly string[] = [],
  coreTimeoutMs?: number,
): Server {
  const server = new Server(
    { name: 'skinmatch', title: 'skinmatch', version: '0.1.0' },
    { capabilities: { tools: { listChanged: false } }, instructions },
  );
  const listing = toolListing(tools);
  registerTools(tools.map((tool) => tool.name));
  const served = new Map(
    tools.map((tool) => [tool.name, { tool, validate: compileInput(tool.inputSchema) }]),
  );

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    // The listing is one page and gives no nextCursor, so no cursor is one of ours (MCP pagination: an
    // invalid cursor is -32602, not the first page again, which a paging client would take as more tools).
    if (request.params?.cursor !== undefined) throw invalidCursor();
    return { tools: listing };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const entry = served.get(request.params.name);
    if (!entry) throw unknownTool(request.params.name, served.keys(), accountOnly);
    try {
      const accountId = extra.authInfo?.extra?.accountId;
      const caller =
        typeof accountId === 'string' ? { accountId, signal: extra.signal } : { signal: extra.signal };
      return toolResult(await entry.tool.call(entry.validate(request.params.arguments), caller));
    } catch (err) {
      const toolError = err instanceof ToolError ? err : fromCoreError(err);
      if (toolError) return errorResult(toolError);
      const requestId = requestIdOf(extra.requestInfo?.headers);
      // Given up (its deadline passed, or its client went away): answered and logged where it was given up.
      if (extra.signal.aborted) return errorResult(unavailable(requestId));
      // Core slower than the façade's bound: the timeout doing its job, answered `unavailable` as designed.
      // A warning (many of them are a slow core, which its own metrics show); errors page someone.
      if (err instanceof ConnectError && err.code === Code.DeadlineExceeded) {
        logger.warn(
          { request_id: requestId, tool: entry.tool.name, bound_ms: coreTimeoutMs, err: describe(err) },
          'tool call timed out waiting for core',
        );
        return errorResult(unavailable(requestId));
      }
      logger.error({ request_id: requestId, tool: entry.tool.name, err: describe(err) }, 'tool call failed');
      return errorResult(unavailable(requestId));
    }
  });
  return server;
}

/**
 * A call naming no tool of this endpoint: -32602 with the name quoted clipped (a megabyte of name is not
 * echoed back), where it is served if only on /mcp/account (delete_my_service_data on /mcp), and the
 * tools there are, so that an agent can correct the call.
 */
function unknownTool(name: string, tools: Iterable<string>, accountOnly: readonly string[]): Error {
  const where = accountOnly.includes(name) ? ` ${ACCOUNT_ONLY}` : '';
  return invalidParams(
    `Unknown tool: ${quoteName(name)}.${where} The tools of this endpoint: ${[...tools].join(', ')}.`,
  );
}

function invalidCursor(): Error {
  return invalidParams('Invalid cursor: tools/list answers in one page; call it without a cursor.');
}

/** -32602 as a plain error with a code: the SDK would prefix an McpError's message with "MCP error -32602: ". */
function invalidParams(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams });
}

/** The tools as `tools/list` shows them: each output schema also admits the shared error body. */
export function toolListing(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: { type: 'object', anyOf: [tool.outputSchema, ERROR_OUTPUT_SCHEMA] },
    annotations: { title: tool.title, ...tool.annotations },
  }));
}

/** The id the app gave this HTTP request (`X-Request-Id` on the response). */
function requestIdOf(headers: Record<string, string | string[] | undefined> | undefined): string {
  const value = headers?.[REQUEST_ID_HEADER];
  return typeof value === 'string' ? value : (currentRequestId() ?? 'unknown');
}

/** Enough of an unexpected error to act on, without anything from the request. */
function describe(err: unknown): Record<string, unknown> {
  return err instanceof Error ? { name: err.name, message: err.message } : { value: String(err) };
}
