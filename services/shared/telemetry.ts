/**
 * Request ids and W3C trace context, carried façade → core → inference.
 *
 * Every process registers an AsyncLocalStorage context manager and the W3C Trace Context propagator of
 * OpenTelemetry as soon as this module loads, so the active context (and with it the request id and the
 * trace) follows a request through its promises without an SDK. The façade puts a request id (a sane
 * incoming `X-Request-Id`, or a new one) and the incoming `traceparent` into the context of each HTTP
 * request; Connect interceptors send both to core and inference as headers (`x-request-id`,
 * `traceparent`) and take them up there; an analysis job carries its upload's `traceparent` through the
 * queue. Every log line shows `request_id` and `trace_id` of the context it was written in (logger.ts).
 *
 * Spans (one per tool call, RPC and analysis) are recorded only when an exporter is configured with the
 * standard OTEL_* variables (startTraceExport); without one the API's non-recording spans still carry the
 * incoming trace id onward.
 */
import { randomUUID } from 'node:crypto';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import {
  type Context,
  context,
  createContextKey,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** The header a request id travels in, on the façade's responses and on every internal call. */
export const REQUEST_ID_HEADER = 'x-request-id';

const REQUEST_ID = createContextKey('skinmatch.request_id');
/** An incoming request id is kept only if it is this sane: short, printable, no separators of a log line. */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

let installed = false;

/** Registers the context manager and the W3C propagator, once per process (before any request). */
export function installTraceContext(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
}
installTraceContext();

export const tracer = trace.getTracer('skinmatch');

/** The incoming id when it is sane, else a new one. */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** The request id of the active context, if any. */
export function currentRequestId(): string | undefined {
  return context.active().getValue(REQUEST_ID) as string | undefined;
}

/** The trace id of the active context, if any (an all-zero id is none). */
export function currentTraceId(): string | undefined {
  const span = trace.getSpanContext(context.active());
  return span && trace.isSpanContextValid(span) ? span.traceId : undefined;
}

/** A context with this request id. */
export function withRequestId(ctx: Context, requestId: string): Context {
  return ctx.setValue(REQUEST_ID, requestId);
}

/** The context that the trace headers in `headers` continue (the root context when there are none). */
export function extractTraceContext(headers: Record<string, unknown> | Headers, base = context.active()) {
  return propagation.extract(base, headers, headers instanceof Headers ? headersGetter : recordGetter);
}

/** The `traceparent` of the active context (to carry it across a queue), if it has a trace. */
export function currentTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a `traceparent` carried across a queue continues. */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  if (!traceparent) return context.active();
  return propagation.extract(context.active(), { traceparent }, recordGetter);
}

const headersGetter = {
  keys: (carrier: Headers) => [...carrier.keys()],
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
};
const recordGetter = {
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier),
  get: (carrier: Record<string, unknown>, key: string) => {
    const value = carrier[key] ?? carrier[key.toLowerCase()];
    return typeof value === 'string' || Array.isArray(value) ? (value as string | string[]) : undefined;
  },
};

/** Ends a span with the outcome of what it covered. */
export function endSpan(span: Span, error?: unknown, outcome?: string): void {
  if (outcome) span.setAttribute('skinmatch.outcome', outcome);
  if (error !== undefined) {
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
  }
  span.end();
}

/**
 * Client side of every internal Connect call: a client span, and the active request id and trace
 * context as headers.
 */
export function clientTelemetry(): Interceptor {
  return (next) => async (req) => {
    const name = `${req.method.parent.typeName}/${req.method.name}`;
    const span = tracer.startSpan(name, {
      kind: SpanKind.CLIENT,
      attributes: { 'rpc.system': 'connect_rpc', 'rpc.method': name },
    });
    const active = trace.setSpan(context.active(), span);
    propagation.inject(active, req.header, {
      set: (carrier: Headers, key: string, value: string) => carrier.set(key, value),
    });
    const requestId = currentRequestId();
    if (requestId) req.header.set(REQUEST_ID_HEADER, requestId);
    try {
      const res = await next(req);
      if (!res.stream) {
        endSpan(span);
        return res;
      }
      return { ...res, message: endWhenDone(res.message, span) };
    } catch (err) {
      endSpan(span, err, codeOf(err));
      throw err;
    }
  };
}

async function* endWhenDone<T>(messages: AsyncIterable<T>, span: Span): AsyncGenerator<T> {
  try {
    yield* messages;
    endSpan(span);
  } catch (err) {
    endSpan(span, err, codeOf(err));
    throw err;
  }
}

/**
 * Server side of every Connect call in core and inference: continues the caller's trace (a server span
 * under its `traceparent`) and takes up its request id, for the call and for a streamed answer's reading.
 */
export function serverTelemetry(): Interceptor {
  return (next) => async (req) => {
    const name = `${req.method.parent.typeName}/${req.method.name}`;
    const incoming = req.header.get(REQUEST_ID_HEADER) ?? undefined;
    let parent = extractTraceContext(req.header);
    if (incoming && SANE_REQUEST_ID.test(incoming)) parent = withRequestId(parent, incoming);
    const span = tracer.startSpan(
      name,
      { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'connect_rpc', 'rpc.method': name } },
      parent,
    );
    const active = trace.setSpan(parent, span);
    try {
      const res = await context.with(active, () => next(req));
      if (!res.stream) {
        endSpan(span);
        return res;
      }
      return { ...res, message: readWithin(active, res.message, span) };
    } catch (err) {
      endSpan(span, err, codeOf(err));
      throw err;
    }
  };
}

/** A streamed answer produced step by step inside `ctx` (connect-node reads it outside any context). */
async function* readWithin<T>(ctx: Context, messages: AsyncIterable<T>, span: Span): AsyncGenerator<T> {
  const iterator = messages[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await context.with(ctx, () => iterator.next());
      if (step.done) break;
      yield step.value;
    }
    endSpan(span);
  } catch (err) {
    endSpan(span, err, codeOf(err));
    throw err;
  } finally {
    await context.with(ctx, () => iterator.return?.());
  }
}

function codeOf(err: unknown): string {
  return err instanceof ConnectError ? codeName(err.code) : 'Internal';
}

/** The gRPC name of a Connect code. */
export function codeName(code: Code): string {
  return Code[code] ?? 'Unknown';
}
