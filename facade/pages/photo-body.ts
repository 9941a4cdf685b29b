/**
 * The photo's body, read with its size bound enforced while it streams in: a body declared larger than the
 * bound is not read at all, and one that grows past it (chunked, with no declared length) is no longer read
 * from that byte on. Either way the answer goes out at once.
 *
 * What happens to the connection after an answer given before the body's end: a rest of known, modest size
 * is read and dropped by Node after the answer, so the keep-alive connection serves the next request; any
 * other is closed — cleanly. Node closes a `Connection: close` socket the moment its answer is written, and
 * closing a socket with unread bytes in it makes the kernel reset the connection, which can throw away the
 * answer before the client has read it (the client is still sending). So the socket is half-closed after the
 * answer and the rest dropped for a moment before it is destroyed: nginx's "lingering close".
 */
import type { Socket } from 'node:net';
import type { Context } from 'koa';
import { DRAIN_BUDGET_BYTES } from '../body.ts';

/** How long a closing connection keeps dropping what the client still sends. */
const LINGER_MS = 2000;

export type PhotoRead =
  | { readonly kind: 'photo'; readonly photo: Buffer }
  | { readonly kind: 'too_large' }
  | { readonly kind: 'aborted' };

export function readPhoto(ctx: Context, maxBytes: number): Promise<PhotoRead> {
  const declared = declaredLength(ctx);
  if (declared !== undefined && declared > maxBytes) {
    leaveUnread(ctx, maxBytes);
    return Promise.resolve({ kind: 'too_large' });
  }
  const { req } = ctx;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (read: PhotoRead) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(read);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      finish({ kind: 'too_large' });
      closeAfterAnswer(ctx);
    };
    const onEnd = () => finish({ kind: 'photo', photo: Buffer.concat(chunks, received) });
    const onAbort = () => finish({ kind: 'aborted' });
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onAbort);
    req.once('close', onClose);
  });
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

function declaredLength(ctx: Context): number | undefined {
  const header = ctx.get('content-length');
  if (header === '' || ctx.get('transfer-encoding') !== '') return undefined;
  const length = Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/** Answers with `Connection: close`, then closes the connection without resetting it (see above). */
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
