/**
 * Reading a request body with a size bound. A body declared larger than the bound (Content-Length) is
 * refused before a byte of it is read: waiting for it held the answer until the slow-body cut, and a client
 * that sent its headers and stopped got 408 ten seconds later instead of 413 at once. A body over the bound
 * is not left in the socket: the rest is read and dropped (up to a drain budget) so the keep-alive
 * connection stays usable for the next request; beyond that budget the connection is closed after the
 * answer instead. The text must be UTF-8: a body
 * that is not (a lone continuation byte, an overlong form, a surrogate) is refused, never read with U+FFFD
 * in place of its bytes — JSON text is UTF-8 (RFC 8259 §8.1), and a lenient read would hand the tools a
 * string the client never sent. A leading byte-order mark is dropped, as JSON parsers may.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';

/** Bytes of an oversized body read and dropped before giving up on the connection. */
export const DRAIN_BUDGET_BYTES = 4 * 1024 * 1024;
/** How long a closing connection keeps dropping what the client still sends. */
const LINGER_MS = 2000;

export type BodyRead = { readonly text: string } | { readonly status: 400 | 413; readonly notUtf8?: true };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function readBody(ctx: Context, limit: number): Promise<BodyRead> {
  if (declaredTooLarge(ctx, limit)) return { status: 413 };
  let bytes: Buffer;
  try {
    bytes = await getRawBody(ctx.req, { limit });
  } catch (err) {
    const status = (err as { status?: number }).status === 413 ? 413 : 400;
    if (status === 400 || !(await drain(ctx.req, DRAIN_BUDGET_BYTES))) ctx.set('Connection', 'close');
    return { status };
  }
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { status: 400, notUtf8: true };
  }
}

/** Reads and drops the rest of a body; false when it is larger than `budget` or the stream fails. */
function drain(req: IncomingMessage, budget: number): Promise<boolean> {
  if (req.readableEnded) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (drained: boolean) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onFail);
      if (!drained) req.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > budget) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onFail);
    req.once('close', onFail);
    req.resume();
  });
}

/**
 * Whether the body is declared larger than `limit`; if so it is left unread (`leaveUnread`), for an answer
 * given at once.
 */
export function declaredTooLarge(ctx: Context, limit: number): boolean {
  const declared = declaredLength(ctx);
  if (declared === undefined || declared <= limit) return false;
  leaveUnread(ctx, limit);
  return true;
}

/**
 * For an answer given without reading the body: a rest of known length up to the bound and the drain budget
 * is left to Node to drop after the answer (the connection is kept); any other closes the connection.
 */
export function leaveUnread(ctx: Context, maxBytes: number): void {
  if (ctx.req.complete) return;
  const declared = declaredLength(ctx);
  if (declared === undefined || declared > maxBytes + DRAIN_BUDGET_BYTES) closeAfterAnswer(ctx);
}

/** The body's Content-Length, when it has one (not chunked) that is a length. */
export function declaredLength(ctx: Context): number | undefined {
  const header = ctx.get('content-length');
  if (header === '' || ctx.get('transfer-encoding') !== '') return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * Answers with `Connection: close`, then closes the connection without resetting it. Node closes a
 * `Connection: close` socket the moment its answer is written, and closing a socket with unread bytes in it
 * makes the kernel reset the connection, which can throw away the answer before the client has read it (the
 * client is still sending). So the socket is half-closed after the answer and the rest dropped for a moment
 * before it is destroyed: nginx's "lingering close".
 */
export function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
  ctx.req.resume(); // whatever else arrives is dropped
  const socket = ctx.req.socket;
  // Node calls destroySoon once the answer is written; a lingering close instead.
  socket.destroySoon = function lingeringClose(this: Socket) {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

/**
 * `Expect: 100-continue`: the client waits for a go-ahead before sending its body. Node gave it as soon as
 * the headers arrived (server.ts now hands such requests on without it), so a body the façade was about to
 * refuse unread — declared too large, over a budget, not this browser's scan — was sent all the same (curl
 * sends any upload over 1 MiB so). The go-ahead now goes out when a route first reads the body; a request
 * answered without reading it gets no go-ahead, and its connection is closed after the answer (a lingering
 * close), since its client may or may not send the body it announced.
 */
export function continueWhenRead(): Middleware {
  return async (ctx, next) => {
    const { req, res } = ctx;
    if (req.headers.expect?.toLowerCase() !== '100-continue') return next();
    let sent = false;
    const onListener = (event: string | symbol) => {
      if (sent || (event !== 'data' && event !== 'readable')) return;
      sent = true;
      req.off('newListener', onListener);
      if (!res.headersSent) res.writeContinue();
    };
    req.on('newListener', onListener);
    try {
      await next();
    } finally {
      req.off('newListener', onListener);
      if (!sent && !req.complete && !res.headersSent) closeAfterAnswer(ctx);
    }
  };
}
