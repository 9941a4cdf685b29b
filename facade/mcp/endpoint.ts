/**
 * POST /mcp (and /mcp/account): the Streamable HTTP transport's rules for a stateless server that
 * answers in JSON (as one SSE event to a client that takes only text/event-stream: answer-format.ts; an
 * Accept that admits neither gets 406). No session, no initialize needed before tools/call. Bodies are
 * bounded (a larger one gets 413, its rest drained: body.ts), uncompressed (any Content-Encoding: 415);
 * malformed JSON or a body that is not UTF-8 gets JSON-RPC -32700, malformed tools/call params -32602,
 * other HTTP methods get 405, an MCP-Protocol-Version not supported 400 (but an initialize is negotiated
 * whatever the header says). Every request first spends a point of the caller's request budget: over it,
 * a request is HTTP 429 with Retry-After (JSON-RPC error -32029, `data.code` `rate_limited`). Tool calls
 * over the request budget or their own are answered here with a `rate_limited` tool error instead, before
 * any work is done. Notifications get 202 with no body and go no further (multiplexer.ts says why). Each
 * request gets an id (`X-Request-Id`) under which a server fault is logged once.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JSONRPCRequest, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  RequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Context } from 'koa';
import type { Logger } from '../../services/shared/logger.ts';
import { secondsSince, toolCallDuration, toolCalls, toolLabel } from '../../services/shared/metrics.ts';
import { endSpan, REQUEST_ID_HEADER, tracer } from '../../services/shared/telemetry.ts';
import { readBody } from '../body.ts';
import type { GuestLimits } from '../rate-limits.ts';
import { type AnswerFormat, answerFormat, sseEvent } from './answer-format.ts';
import { type RequestMultiplexer, TIMED_OUT } from './multiplexer.ts';
import { errorResult, ToolError, unavailable } from './tool-errors.ts';

/**
 * The largest body read (1 MiB). A tool call's arguments are a few hundred bytes, but an agent that sends
 * an overlong value (a 100 000-character `brand`) must get the tool's `invalid_input` naming the argument,
 * not a transport error it cannot act on: the bound is well above any argument an agent would send, and
 * under the SDK's own (4 MiB, DEFAULT_MAX_REQUEST_BODY_SIZE) and the drain budget (body.ts). Slow bodies
 * are bounded by their rate, whatever their size (slow-bodies.ts).
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The JSON-RPC error code of a request refused by the request budget (in the server-error range). */
export const RATE_LIMITED = -32029;

/** Answers a request itself instead of serving it (e.g. a scope the bearer lacks); true when it did. */
export type Refusal = (ctx: Context, request: JSONRPCRequest) => boolean;

export function mcpEndpoint(mux: RequestMultiplexer, limits: GuestLimits, logger: Logger) {
  const handle = mcpRequest(mux, limits, logger);
  return async (ctx: Context, refuse?: Refusal): Promise<void> => {
    // Answers carry secrets (start_skin_scan's access_token) and a person's scores: no cache on the way
    // (a proxy, the client's HTTP stack) may keep one, as for OAuth's token responses (RFC 6749 §5.1).
    ctx.set('Cache-Control', 'no-store');
    const format = answerFormat(ctx.get('accept'));
    await handle(ctx, format, refuse);
    // A client that takes only text/event-stream gets its answer as one SSE event (answer-format.ts).
    if (format === 'sse' && ctx.status === 200 && ctx.body !== null && typeof ctx.body === 'object') {
      const message = ctx.body;
      ctx.set('Content-Type', 'text/event-stream'); // as the SDK's servers send it, no charset
      ctx.body = sseEvent(message);
    }
  };
}

function mcpRequest(mux: RequestMultiplexer, limits: GuestLimits, logger: Logger) {
  return async (ctx: Context, format: AnswerFormat | undefined, refuse?: Refusal): Promise<void> => {
    // On /mcp/account the verified account (set by account-endpoint.ts) reaches the tools as authInfo,
    // and limits count per account instead of per network.
    const authInfo = ctx.state.authInfo as AuthInfo | undefined;
    const limitKey = authInfo ? `account:${String(authInfo.extra?.accountId)}` : ctx.ip;
    // Every request spends a point of the request budget first, whatever it turns out to be. Over it, a
    // well-formed tool call still gets its `rate_limited` tool error (below); anything else gets HTTP 429.
    const overBudget = await limits.checkRequest(limitKey);
    const fail = (status: number, code: number, message: string, id: RequestId | null = null) =>
      overBudget ? tooManyRequests(ctx, overBudget, id) : reject(ctx, status, code, message, id);
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      return fail(405, -32000, 'Method not allowed: this stateless server takes POST only.');
    }
    // The header itself: Koa's ctx.is answers null for a request without a body, which was then told its
    // Content-Type was wrong.
    const mediaType = ctx.get('content-type').split(';', 1)[0]!.trim().toLowerCase();
    if (mediaType !== 'application/json') {
      return fail(415, -32000, 'Content-Type must be application/json.');
    }
    // Request bodies are taken as sent, never decompressed (MCP clients send none compressed; a decoder
    // would need its own bound on the inflated size): any coding but identity is 415 (RFC 9110 §15.5.16).
    const coding = ctx.get('content-encoding').trim().toLowerCase();
    if (coding !== '' && coding !== 'identity') {
      ctx.set('Accept-Encoding', 'identity');
      return fail(415, -32000, 'Content-Encoding is not supported: send the body uncompressed.');
    }
    if (!format) {
      return fail(
        406,
        -32000,
        'Accept must admit application/json (or text/event-stream): the answer is JSON.',
      );
    }
    const body = await readBody(ctx, MAX_BODY_BYTES);
    if (!('text' in body)) {
      if (body.notUtf8) return fail(400, -32700, 'Parse error: the body is not valid UTF-8.');
      const tooLarge = body.status === 413;
      return fail(body.status, -32600, tooLarge ? 'Request body too large.' : 'Unreadable request body.');
    }
    const text = body.text;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      const why = text.trim() === '' ? 'the body is empty' : 'the body is not valid JSON';
      return fail(400, -32700, `Parse error: ${why}.`);
    }
    // Given by the app's first middleware (and already on the response).
    const requestId = String(ctx.state.requestId);
    const headers = { ...ctx.headers, [REQUEST_ID_HEADER]: requestId };
    const extra: MessageExtraInfo = { requestInfo: { headers }, authInfo };
    const kind = envelope(message);
    const id = kind === 'request' ? (message as JSONRPCRequest).id : null;
    // The header names the version agreed at initialize, so an initialize is served whatever it says: a
    // client of a later version (sending its own on every request) is told the version this server speaks.
    const version = ctx.get('mcp-protocol-version');
    const initialize = kind === 'request' && (message as JSONRPCRequest).method === 'initialize';
    if (version && !initialize && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
      return fail(400, -32000, `Unsupported MCP-Protocol-Version: ${version} (supported: ${supported}).`, id);
    }
    if (kind === 'request') {
      const request = message as JSONRPCRequest;
      const isToolCall = request.method === 'tools/call';
      if (overBudget && !(isToolCall && toolCallParamsOk(request.params))) {
        return tooManyRequests(ctx, overBudget, request.id);
      }
      // Malformed tools/call params keep their own answer below; anything else the SDK would refuse is
      // answered here.
      const problem =
        isToolCall && !toolCallParamsOk(request.params)
          ? undefined
          : requestProblem(message as Record<string, unknown>);
      if (problem) return fail(problem.status, problem.code, problem.message, request.id);
      if (refuse?.(ctx, request)) return;
      if (!isToolCall) {
        const response = await serve(mux, request, extra, ctx);
        if (response) ctx.body = response;
        return;
      }
      if (!toolCallParamsOk(request.params)) {
        return reject(
          ctx,
          200,
          -32602,
          'Invalid params: tools/call takes a string "name" and an object "arguments".',
          request.id,
        );
      }
      // A tool run as a task (MCP 2025-11-25) is not offered (no tasks capability): the SDK refuses such a
      // call as an internal error (-32603), which tells a client the server failed; it is the client's param.
      if ((request.params as Record<string, unknown>).task !== undefined) {
        return reject(
          ctx,
          200,
          -32602,
          'Invalid params: this server runs no tool as a task (no tasks capability).',
          request.id,
        );
      }
      // One span and one measurement per tool call, from here (before the rate limits) to its answer.
      const tool = toolLabel(request.params?.name);
      const started = performance.now();
      const span = tracer.startSpan(`mcp.tool ${tool}`, {
        kind: SpanKind.SERVER,
        attributes: { 'mcp.tool': tool },
      });
      let outcome = 'ok';
      try {
        await context.with(trace.setSpan(context.active(), span), async () => {
          const refusal = overBudget ?? (await limits.check(String(request.params?.name), limitKey));
          if (refusal) {
            outcome = refusal.code;
            ctx.body = { jsonrpc: '2.0', id: request.id, result: errorResult(refusal) };
            return;
          }
          if (Object.hasOwn(request.params?.arguments ?? {}, '__proto__')) {
            // JSON.parse keeps this key, but the SDK's parse of params drops it before the tools' own
            // check could refuse it as the unknown argument it is.
            outcome = 'invalid_input';
            const unknown = new ToolError('invalid_input', 'Unknown argument "__proto__".', '__proto__');
            ctx.body = { jsonrpc: '2.0', id: request.id, result: errorResult(unknown) };
            return;
          }
          const response = await serve(mux, request, extra, ctx);
          if (!response) {
            outcome = 'cancelled'; // the client went away; nothing to answer
            return;
          }
          if ('error' in response && (response.error as { code: number }).code === TIMED_OUT) {
            outcome = 'unavailable';
            // The request's own bound (MCP_REQUEST_TIMEOUT_MS) doing its job: a warning, not an error.
            logger.warn({ request_id: requestId, tool, bound_ms: mux.timeoutMs }, 'tool call timed out');
            ctx.body = { jsonrpc: '2.0', id: request.id, result: errorResult(unavailable(requestId)) };
            return;
          }
          outcome = outcomeOf(response);
          ctx.body = response;
        });
      } finally {
        const labels = { tool, outcome };
        toolCalls.inc(labels);
        toolCallDuration.observe(labels, secondsSince(started));
        endSpan(span, undefined, outcome);
      }
      return;
    }
    if (overBudget) return tooManyRequests(ctx, overBudget);
    if (kind === 'notification' || kind === 'response') {
      ctx.body = null; // 202 with no body at all (Koa would otherwise write "Accepted")
      ctx.status = 202;
      return;
    }
    // Batches (MCP 2025-03-26 only; 2025-06-18 removed them) are not served, and the SDK clients send
    // none: said as such, so that a client knows what to change.
    if (Array.isArray(message)) {
      return fail(
        400,
        -32600,
        'Invalid Request: batches are not accepted; send each request in its own POST.',
      );
    }
    return fail(400, -32600, 'Invalid Request: expected one JSON-RPC 2.0 request object.');
  };
}

/** Hands a request to the MCP server; cancelled when the HTTP client goes away first. */
function serve(mux: RequestMultiplexer, request: JSONRPCRequest, extra: MessageExtraInfo, ctx: Context) {
  const gone = new AbortController();
  // Only a client gone before its answer cancels the call: aborting after every answer built an
  // unused DOMException (stack and all) per request (docs/data-path.md).
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort();
  });
  return mux.request(request, extra, gone.signal);
}

/** A tool call's outcome for the metrics: ok, the tool error's code, or protocol_error (JSON-RPC). */
function outcomeOf(response: object): string {
  if ('error' in response) return 'protocol_error';
  const result = (response as { result?: { isError?: boolean; structuredContent?: unknown } }).result;
  if (!result?.isError) return 'ok';
  const code = (result.structuredContent as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : 'error';
}

/** tools/call needs a string name and, if any, an object of arguments; the SDK's own answer is a dump. */
function toolCallParamsOk(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const { name, arguments: args } = params as Record<string, unknown>;
  const argsOk = args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));
  return typeof name === 'string' && argsOk;
}

/**
 * The JSON-RPC 2.0 envelope, checked by shape only: a request (a string method and an id) is answered
 * with its own id from here on, and `requestProblem` checks the rest before the SDK sees it.
 */
function envelope(message: unknown): 'request' | 'notification' | 'response' | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const params = m.params;
  const paramsOk =
    params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params));
  const idOk = typeof m.id === 'string' || Number.isSafeInteger(m.id);
  if (typeof m.method === 'string') {
    if (idOk) return 'request';
    return 'id' in m || !paramsOk ? undefined : 'notification';
  }
  return idOk && ('result' in m || 'error' in m) ? 'response' : undefined;
}

/** The SDK's schema of each method the server serves; any other method only needs the common params. */
interface ParamsSchema {
  safeParse(
    value: unknown,
  ):
    | { success: true }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}
/** A Map, not an object: a method named `constructor` or `__proto__` found Object's members (HTTP 500). */
const PARAMS_SCHEMAS = new Map<string, ParamsSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * What the SDK's server would refuse in a request, answered here with the request's id. The server drops
 * a message that fails its envelope schema (an unknown member, `params._meta` of the wrong shape) without
 * an answer, so its HTTP request would wait out the deadline; and it answers params that fail a method's
 * schema as an internal error (-32603) with the whole validation dump.
 */
function requestProblem(
  message: Record<string, unknown>,
): { status: number; code: number; message: string } | undefined {
  const extra = Object.keys(message).find((key) => !REQUEST_MEMBERS.has(key));
  if (extra !== undefined) {
    return { status: 400, code: -32600, message: `Invalid Request: unknown member "${extra}".` };
  }
  const { method, params } = message as { method: string; params?: unknown };
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return { status: 200, code: -32602, message: 'Invalid params: params must be an object.' };
  }
  const parsed = (PARAMS_SCHEMAS.get(method) ?? RequestSchema).safeParse({ method, params });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  const why = issue ? issue.message.replace(/^Invalid input: /, '') : 'invalid';
  return { status: 200, code: -32602, message: `Invalid params: ${where}: ${why}.` };
}

/**
 * A request over the caller's request budget that is not a tool call: HTTP 429 with Retry-After, and a
 * JSON-RPC error carrying the same `rate_limited` code and `retry_after_seconds` a tool error would.
 */
export function tooManyRequests(ctx: Context, refusal: ToolError, id: RequestId | null = null) {
  const wait = refusal.retryAfterSeconds ?? 1;
  ctx.set('Retry-After', String(wait));
  ctx.status = 429;
  ctx.body = {
    jsonrpc: '2.0',
    id,
    error: {
      code: RATE_LIMITED,
      message: refusal.message,
      data: { code: refusal.code, retry_after_seconds: wait },
    },
  };
}

function reject(ctx: Context, status: number, code: number, message: string, id: RequestId | null = null) {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', id, error: { code, message } };
}
