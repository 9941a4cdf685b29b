/**
 * The photo's body, read with its size bound enforced while it streams in: a body declared larger than the
 * bound is not read at all, and one that grows past it (chunked, with no declared length) is no longer read
 * from that byte on. Either way the answer goes out at once, and the connection is kept or closed as
 * body.ts's `leaveUnread` and `closeAfterAnswer` say.
 */
import type { Context } from 'koa';
import { closeAfterAnswer, declaredLength, leaveUnread } from '../body.ts';

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
