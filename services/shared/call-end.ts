/**
 * Runs something once a Connect call has answered, however it ends: a unary call when its answer (or
 * error) is there, a streaming one after its last message, its error, or its client leaving it unread.
 * For interceptors that hold something for the length of a call (a slot, a scope).
 */
import type { StreamResponse, UnaryResponse } from '@connectrpc/connect';

export async function whenAnswered(
  call: () => Promise<UnaryResponse | StreamResponse>,
  ended: () => void,
): Promise<UnaryResponse | StreamResponse> {
  let res: UnaryResponse | StreamResponse;
  try {
    res = await call();
  } catch (err) {
    ended();
    throw err;
  }
  if (!res.stream) {
    ended();
    return res;
  }
  const messages = res.message;
  return {
    ...res,
    message: (async function* () {
      try {
        yield* messages;
      } finally {
        ended();
      }
    })(),
  };
}
