/**
 * Slow request bodies. A body (POST /mcp, the upload page's consent and photo, the authorization server's
 * forms) gets `graceMs` (10 s) to start, and that deadline moves on by one second for every
 * `minBytesPerSecond` (32 KiB) that arrive (Apache's mod_reqtimeout `body=10,MinRate=…`): a body trickling in a byte at a time is
 * cut after about 10 s, while a photo sent by a phone on a weak link (the page's ≤2048-px JPEG, 1–2 MB,
 * takes about a minute at 256 kbit/s) keeps its deadline ahead of it. A body cut is answered 408 (when no
 * answer went out yet) and its connection closed. The rate is measured on the connection (bytes the socket
 * read), so a body the façade reads late, or not at all (an answer given first), counts all the same.
 *
 * A network (facade/net.ts's address, as the rate limits count it: an IPv4 address, an IPv6 /64; behind a
 * proxy, the client's X-Forwarded-For address) may have `perNetwork` (16) slow bodies at once, still
 * arriving SLOW_AFTER_MS after their request began; past that a request with a body is refused before it
 * is read: 429 `rate_limited` with Retry-After, in the route's error shape, and its connection closed.
 * Requests on a connection opened past its network's bound of
 * open connections (server.ts) are refused in the same way. Counted in this replica's memory: they are
 * this replica's connections, not a budget over time.
 */
import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import { slowClientRefusals } from '../services/shared/metrics.ts';
import { closeAfterAnswer } from './body.ts';
import { tooManyRequests } from './mcp/endpoint.ts';
import { ToolError } from './mcp/tool-errors.ts';
import { setPageHeaders } from './pages/page-security.ts';
import { networkOf } from './rate-limits.ts';

export interface BodyBounds {
  /** How long a body has before the first byte counts (and what it keeps ahead of its rate; > SLOW_AFTER_MS). */
  readonly graceMs: number;
  /** The slowest rate a body may arrive at, bytes per second. */
  readonly minBytesPerSecond: number;
  /** Slow bodies arriving at once from one network. */
  readonly perNetwork: number;
}

/** 32 KiB/s is 256 kbit/s, a weak 3G uplink. */
export const DEFAULT_BODY_BOUNDS: BodyBounds = {
  graceMs: 10_000,
  minBytesPerSecond: 32 * 1024,
  perNetwork: 16,
};

/**
 * A body still arriving this long after its request began counts as slow against its network. Bodies that
 * arrive at once (an agent's burst of calls: their bodies are never whole when a request starts) never do.
 */
export const SLOW_AFTER_MS = 1000;

/** Retry-After of a refusal for too many connections or bodies: until one of them has ended, likely. */
export const SLOW_RETRY_SECONDS = 10;

const refusedConnections = new WeakSet<Socket>();

/** Marks a connection opened past its network's bound: its requests are refused (server.ts). */
export function refuseConnection(socket: Socket): void {
  refusedConnections.add(socket);
  slowClientRefusals.inc({ bound: 'connections' });
}

export function slowBodies(bounds: BodyBounds = DEFAULT_BODY_BOUNDS): Middleware {
  /** Bodies still arriving SLOW_AFTER_MS after their request began, per network. */
  const slow = new Map<string, number>();
  return async (ctx, next) => {
    const { req } = ctx;
    if (refusedConnections.has(req.socket)) {
      return refuseSlow(ctx, 'connections', 'Too many open connections from this network');
    }
    if (!bodyToCome(ctx)) return next();
    const network = networkOf(ctx.ip);
    if ((slow.get(network) ?? 0) >= bounds.perNetwork) {
      slowClientRefusals.inc({ bound: 'bodies' });
      return refuseSlow(ctx, 'bodies', 'Too many requests from this network are still sending their bodies');
    }
    const socket = req.socket;
    const startedAt = Date.now();
    const readAtStart = socket.bytesRead;
    let counted = false;
    let timer: NodeJS.Timeout | undefined;
    const release = () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      req.off('end', release);
      socket.off('close', release);
      if (counted) add(slow, network, -1);
    };
    // Counted once slow (a burst of quick requests never is), then cut once behind the minimum rate.
    const check = () => {
      if (req.complete) return release();
      if (!counted) {
        counted = true;
        add(slow, network, 1);
      }
      const earned = ((socket.bytesRead - readAtStart) / bounds.minBytesPerSecond) * 1000;
      const wait = startedAt + bounds.graceMs + earned - Date.now();
      if (wait > 0) {
        timer = setTimeout(check, wait);
        return;
      }
      release();
      slowClientRefusals.inc({ bound: 'body_rate' });
      cut(ctx);
    };
    timer = setTimeout(check, SLOW_AFTER_MS);
    req.once('end', release);
    socket.once('close', release);
    await next();
  };
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

/** A request whose body has not all arrived yet (one with no body, or a body already whole, has none). */
function bodyToCome(ctx: Context): boolean {
  if (ctx.req.complete) return false;
  return ctx.get('transfer-encoding') !== '' || Number(ctx.get('content-length') || 0) > 0;
}

/**
 * 429 `rate_limited` in the route's shape, the body left unread and the connection closed after it. The
 * request's log line is then the refusal's (`slow client refused`, app.ts), with the bound.
 */
function refuseSlow(ctx: Context, bound: 'connections' | 'bodies', why: string): void {
  ctx.state.slowClient = bound;
  const message = `${why}; wait ${SLOW_RETRY_SECONDS} s before trying again.`;
  if (!ctx.req.complete) closeAfterAnswer(ctx);
  else ctx.set('Connection', 'close');
  if (ctx.path.startsWith('/mcp')) {
    tooManyRequests(ctx, new ToolError('rate_limited', message, undefined, SLOW_RETRY_SECONDS));
  } else {
    ctx.set('Retry-After', String(SLOW_RETRY_SECONDS));
    answer(ctx, 429, 'rate_limited', message);
  }
}

/**
 * A body too slow: 408 in the route's shape when nothing was answered yet, then the connection closed (a
 * lingering close, photo-body.ts, so the client reads the answer); closed at once after an answer.
 */
function cut(ctx: Context): void {
  const { res, req } = ctx;
  ctx.state.slowClient = 'body_rate';
  // Node ends a request whose connection closes before its body only while its answer is unsent: after
  // ours, a route still reading the body would wait for ever, and the request would never be logged.
  req.socket.once('close', () => {
    if (!req.complete) req.destroy(Object.assign(new Error('aborted'), { code: 'ECONNABORTED' }));
  });
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const message = 'The request body arrived too slowly; the connection is closed.';
  const body = ctx.path.startsWith('/mcp')
    ? { jsonrpc: '2.0', id: null, error: { code: -32000, message } }
    : errorBody(ctx, 'request_timeout', message);
  if (ctx.path.startsWith('/scan/')) setPageHeaders(ctx);
  closeAfterAnswer(ctx);
  // Answered here, outside Koa's response: the handler still waiting for the body finds it aborted, and
  // Koa writes nothing more on an ended response.
  const text = JSON.stringify(body);
  ctx.status = 408; // for the request's log line: the handler's own status comes too late to count
  res.writeHead(408, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** The error body of the upload page (`message`) or of the authorization server and the rest (RFC 6749). */
function errorBody(ctx: Context, error: string, message: string): Record<string, string> {
  return ctx.path.startsWith('/scan/') ? { error, message } : { error, error_description: message };
}

function answer(ctx: Context, status: number, error: string, message: string): void {
  if (ctx.path.startsWith('/scan/')) setPageHeaders(ctx);
  else ctx.set('Cache-Control', 'no-store');
  ctx.status = status;
  ctx.body = errorBody(ctx, error, message);
}
