/**
 * Reading a request body with a size bound. A body over the bound is not left in the socket: the rest is
 * read and dropped (up to a drain budget) so the keep-alive connection stays usable for the next request;
 * beyond that budget the connection is closed after the answer instead. The text must be UTF-8: a body
 * that is not (a lone continuation byte, an overlong form, a surrogate) is refused, never read with U+FFFD
 * in place of its bytes — JSON text is UTF-8 (RFC 8259 §8.1), and a lenient read would hand the tools a
 * string the client never sent. A leading byte-order mark is dropped, as JSON parsers may.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import getRawBody from 'raw-body';

/** Bytes of an oversized body read and dropped before giving up on the connection. */
export const DRAIN_BUDGET_BYTES = 4 * 1024 * 1024;

export type BodyRead = { readonly text: string } | { readonly status: 400 | 413; readonly notUtf8?: true };

const utf8 = new TextDecoder('utf-8', { fatal: true });

export async function readBody(ctx: Context, limit: number): Promise<BodyRead> {
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
