/**
 * POST /mcp (and /mcp/account): the Streamable HTTP transport's rules for a stateless server that
 * answers in JSON (as one SSE event to a client that takes only text/event-stream: answer-format.ts; an
 * Accept that admits neither gets 406). No session, no initialize needed before tools/call. Bodies are
 * bounded (a larger one gets 413, its rest drained: body.ts), uncompressed (any Content-Encoding: 415);
 * a JSON-RPC batch is served to MCP 2025-03-26 clients (each message as if sent alone) and refused to later
 * ones, which have none; malformed JSON or a body that is not UTF-8 gets JSON-RPC -32700, malformed
 * tools/call params -32602, other HTTP methods get 405, an MCP-Protocol-Version not supported 400 (but an initialize is negotiated
 * whatever the header says). Every request first spends a point of the caller's request budget: over it,
 * a request is HTTP 429 with Retry-After (JSON-RPC error -32029, `data.code` `rate_limited`). Tool calls
 * over the request budget or their own are answered here with a `rate_limited` tool error instead, before
 * any work is done. Notifications get 202 with no body and go no further (multiplexer.ts says why). Each
 * request gets an id (`X-Request-Id`) under which a server fault is logged once.
 */
import { setMaxListeners } from 'node:events';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JSONRPCRequest, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Context } from 'koa';
import type { Logger } from '../../services/shared/logger.ts';
import { secondsSince, toolCallDuration, toolCalls, toolLabel } from '../../services/shared/metrics.ts';
import { endSpan, REQUEST_ID_HEADER, tracer } from '../../services/shared/telemetry.ts';
import { readBody } from '../body.ts';
import type { GuestLimits } from '../rate-limits.ts';
import { type AnswerFormat, answerFormat, sseEvent } from './answer-format.ts';
import { type RequestMultiplexer, TIMED_OUT } from './multiplexer.ts';
import { envelope, requestProblem, toolCallParamsOk, withoutNulls } from './request-shape.ts';
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

/** Where a message's answer goes: the HTTP response (a Koa context is one), or its place in a batch's. */
export interface Reply {
  status: number;
  body: unknown;
  set(field: string, value: string): void;
  remove(field: string): void;
}

/** Answers a request in `reply` instead of serving it (e.g. a scope the bearer lacks); true when it did. */
export type Refusal = (ctx: Context, request: JSONRPCRequest, reply: Reply) => boolean;

/** The Content-Type of a JSON answer, as Koa writes it for an object body. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** The versions of MCP with JSON-RPC batches (2025-06-18 removed them), compared as the dates they are. */
const LAST_VERSION_WITH_BATCHES = '2025-03-26';

/** The most messages one batch may hold: each is a request of its own, answered at once. */
export const MAX_BATCH = 20;

export function mcpEndpoint(mux: RequestMultiplexer, limits: GuestLimits, logger: Logger) {
  const handle = mcpRequest(mux, limits, logger);
  return async (ctx: Context, refuse?: Refusal): Promise<void> => {
    // Answers carry secrets (start_skin_scan's access_token) and a person's scores: no cache on the way
    // (a proxy, the client's HTTP stack) may keep one, as for OAuth's token responses (RFC 6749 §5.1).
    ctx.set('Cache-Control', 'no-store');
    // Every answer here is JSON-RPC (an SSE answer is retyped below, a 202 untyped): typed once, so that
    // Koa does not look 'json' up in mime-types for each body it is given (1.6 % of the façade's CPU).
    ctx.set('Content-Type', JSON_TYPE);
    const format = answerFormat(ctx.get('accept'));
    await handle(ctx, format, refuse);
    // A client that takes only text/event-stream gets its answer as one SSE event (answer-format.ts), a
    // batch's answers as one event each.
    if (format === 'sse' && ctx.status === 200 && ctx.body !== null && typeof ctx.body === 'object') {
      const messages: unknown[] = Array.isArray(ctx.body) ? ctx.body : [ctx.body];
      ctx.set('Content-Type', 'text/event-stream'); // as the SDK's servers send it, no charset
      ctx.body = messages.map(sseEvent).join('');
    }
  };
}

function mcpRequest(mux: RequestMultiplexer, limits: GuestLimits, logger: Logger) {
  const answer = messageAnswer(mux, limits, logger);
  return async (ctx: Context, format: AnswerFormat | undefined, refuse?: Refusal): Promise<void> => {
    const limitKey = limitKeyOf(ctx);
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
    // The header names the version agreed at initialize, so an initialize is served whatever it says: a
    // client of a later version (sending its own on every request) is told the version this server speaks.
    const version = ctx.get('mcp-protocol-version');
    const id = envelope(message) === 'request' ? (message as JSONRPCRequest).id : null;
    if (version && !isInitialize(message) && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
      return fail(400, -32000, `Unsupported MCP-Protocol-Version: ${version} (supported: ${supported}).`, id);
    }
    if (!Array.isArray(message)) return answer(ctx, ctx, message, overBudget, refuse);
    // A batch (MCP 2025-03-26 and before; a client sending no header is taken to speak 2025-03-26, as the
    // spec says): each message answered as if sent alone, spending its own point of the request budget,
    // the answers in one array (their HTTP statuses dropped, their headers kept); 202 when none has one.
    const refusal = batchRefusal(message, version);
    if (refusal) return fail(400, -32600, refusal);
    const answers = await Promise.all(
      message.map(async (element, i) => {
        const reply: Reply = {
          status: 200,
          body: undefined,
          set: (field, value) => ctx.set(field, value),
          remove: () => {}, // the batch's answer is typed as a whole
        };
        const spent = i === 0 ? overBudget : await limits.checkRequest(limitKey);
        await answer(ctx, reply, element, spent, refuse);
        return reply.body;
      }),
    );
    const bodies = answers.filter((body) => body !== undefined && body !== null);
    if (bodies.length === 0) return accepted(ctx);
    ctx.body = bodies;
  };
}

/** Answers one JSON-RPC message into `reply`: the HTTP response itself, or its place in a batch's answer. */
function messageAnswer(mux: RequestMultiplexer, limits: GuestLimits, logger: Logger) {
  return async (
    ctx: Context,
    reply: Reply,
    sent: unknown,
    overBudget: ToolError | undefined,
    refuse?: Refusal,
  ): Promise<void> => {
    // On /mcp/account the verified account (set by account-endpoint.ts) reaches the tools as authInfo.
    const authInfo = ctx.state.authInfo as AuthInfo | undefined;
    const limitKey = limitKeyOf(ctx);
    const fail = (status: number, code: number, message: string, id: RequestId | null = null) =>
      overBudget ? tooManyRequests(reply, overBudget, id) : reject(reply, status, code, message, id);
    const message = withoutNulls(sent);
    // Given by the app's first middleware (and already on the response).
    const requestId = String(ctx.state.requestId);
    const headers = { ...ctx.headers, [REQUEST_ID_HEADER]: requestId };
    const extra: MessageExtraInfo = { requestInfo: { headers }, authInfo };
    const kind = envelope(message);
    if (kind === 'request') {
      const request = message as JSONRPCRequest;
      const isToolCall = request.method === 'tools/call';
      if (overBudget && !(isToolCall && toolCallParamsOk(request.params))) {
        return tooManyRequests(reply, overBudget, request.id);
      }
      // Malformed tools/call params keep their own answer below; anything else the SDK would refuse is
      // answered here.
      const problem =
        isToolCall && !toolCallParamsOk(request.params)
          ? undefined
          : requestProblem(message as Record<string, unknown>);
      if (problem) return fail(problem.status, problem.code, problem.message, request.id);
      if (refuse?.(ctx, request, reply)) return;
      if (!isToolCall) {
        const response = await serve(mux, request, extra, ctx);
        if (response) reply.body = response;
        return;
      }
      if (!toolCallParamsOk(request.params)) {
        return reject(
          reply,
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
          reply,
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
            reply.body = { jsonrpc: '2.0', id: request.id, result: errorResult(refusal) };
            return;
          }
          if (Object.hasOwn(request.params?.arguments ?? {}, '__proto__')) {
            // JSON.parse keeps this key, but the SDK's parse of params drops it before the tools' own
            // check could refuse it as the unknown argument it is.
            outcome = 'invalid_input';
            const unknown = new ToolError('invalid_input', 'Unknown argument "__proto__".', '__proto__');
            reply.body = { jsonrpc: '2.0', id: request.id, result: errorResult(unknown) };
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
            reply.body = { jsonrpc: '2.0', id: request.id, result: errorResult(unavailable(requestId)) };
            return;
          }
          outcome = outcomeOf(response);
          reply.body = response;
        });
      } finally {
        const labels = { tool, outcome };
        toolCalls.inc(labels);
        toolCallDuration.observe(labels, secondsSince(started));
        endSpan(span, undefined, outcome);
      }
      return;
    }
    if (overBudget) return tooManyRequests(reply, overBudget);
    if (kind === 'notification' || kind === 'response') return accepted(reply);
    return fail(400, -32600, 'Invalid Request: expected one JSON-RPC 2.0 request object.');
  };
}

/** Hands a request to the MCP server; cancelled when the HTTP client goes away first. */
function serve(mux: RequestMultiplexer, request: JSONRPCRequest, extra: MessageExtraInfo, ctx: Context) {
  return mux.request(request, extra, clientGone(ctx));
}

/** Each HTTP request's signal that its client went away, shared by the messages of a batch. */
const goneSignals = new WeakMap<Context, AbortSignal>();

/**
 * One listener on the response per HTTP request, not one per message: a batch's 11th added the 11th
 * `close` listener, and Node wrote a MaxListenersExceededWarning to stderr for every such batch. Only a
 * client gone before its answer aborts: aborting after every answer built an unused DOMException (stack
 * and all) per request (docs/data-path.md).
 */
function clientGone(ctx: Context): AbortSignal {
  let signal = goneSignals.get(ctx);
  if (signal) return signal;
  const gone = new AbortController();
  signal = gone.signal;
  setMaxListeners(MAX_BATCH, signal); // each pending message of a batch listens (multiplexer.ts)
  goneSignals.set(ctx, signal);
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) gone.abort();
  });
  return signal;
}

/** A tool call's outcome for the metrics: ok, the tool error's code, or protocol_error (JSON-RPC). */
function outcomeOf(response: object): string {
  if ('error' in response) return 'protocol_error';
  const result = (response as { result?: { isError?: boolean; structuredContent?: unknown } }).result;
  if (!result?.isError) return 'ok';
  const code = (result.structuredContent as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' && /^[a-z_]{1,40}$/.test(code) ? code : 'error';
}

/**
 * A request over the caller's request budget that is not a tool call: HTTP 429 with Retry-After, and a
 * JSON-RPC error carrying the same `rate_limited` code and `retry_after_seconds` a tool error would.
 */
export function tooManyRequests(ctx: Reply, refusal: ToolError, id: RequestId | null = null) {
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

function reject(ctx: Reply, status: number, code: number, message: string, id: RequestId | null = null) {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', id, error: { code, message } };
}

/** Whose budgets a request spends: the account's on /mcp/account (account-endpoint.ts), else the network's. */
function limitKeyOf(ctx: Context): string {
  const authInfo = ctx.state.authInfo as AuthInfo | undefined;
  return authInfo ? `account:${String(authInfo.extra?.accountId)}` : ctx.ip;
}

/** Accepted with no body at all (Koa would otherwise write "Accepted"): a notification or a response. */
function accepted(reply: Reply): void {
  reply.remove('Content-Type'); // typed JSON, Koa would send a null body as the text `null`
  reply.body = null;
  reply.status = 202;
}

function isInitialize(message: unknown): boolean {
  return envelope(message) === 'request' && (message as JSONRPCRequest).method === 'initialize';
}

/** Why a batch is not served, if it is not. */
function batchRefusal(batch: readonly unknown[], version: string): string | undefined {
  if (version > LAST_VERSION_WITH_BATCHES) {
    return `Invalid Request: MCP ${version} has no batches; send each request in its own POST.`;
  }
  if (batch.length === 0) return 'Invalid Request: the batch is empty.';
  if (batch.length > MAX_BATCH) return `Invalid Request: a batch holds at most ${MAX_BATCH} messages.`;
  if (batch.some(isInitialize)) {
    return 'Invalid Request: initialize must not be part of a batch; send it on its own.';
  }
  return undefined;
}
