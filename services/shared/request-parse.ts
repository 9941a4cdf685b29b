/**
 * A request whose message cannot be parsed (malformed protobuf bytes, invalid UTF-8 in a string field) is the
 * caller's fault: INVALID_ARGUMENT, as connect-go and grpc-go answer it, with the ErrorInfo reason
 * `invalid_input` our other refusals of input carry (DESIGN.md, Errors). connect-es's binary serialization
 * throws it as INTERNAL ("parse binary: …"), which tells the caller the server failed and to send the same
 * bytes again. Connect's JSON parse errors are INVALID_ARGUMENT already.
 *
 * connect-es parses a unary request before any interceptor runs, and a streamed one inside the call, so both
 * places are covered, for every service of a server (server.ts): the request gate (call-gate.ts) watches the
 * call's signal, which the protocol aborts with the very error it writes next (gRPC's trailers, gRPC-Web's, Connect's JSON
 * error), and the interceptor wraps a stream's request messages. An error thrown once the call has reached
 * the interceptors (a response of another server that did not parse, say) is ours and stays INTERNAL.
 */
import { Code, ConnectError, createContextKey, type Interceptor } from '@connectrpc/connect';
import { serviceError } from './errors.ts';

const PARSE_BINARY = 'parse binary: ';

/** Set once a call reaches the interceptors: its request message (if unary) has parsed. */
export const REACHED = createContextKey(false, { description: 'skinmatch.request-parsed' });

/** Whether `err` is connect-es's refusal of a request message that does not parse. */
function isUnparsable(err: unknown): err is ConnectError {
  return err instanceof ConnectError && err.code === Code.Internal && err.rawMessage.startsWith(PARSE_BINARY);
}

/**
 * A unary request that did not parse ends INVALID_ARGUMENT: called with the error the protocol aborts the call
 * with before it reached the interceptors (call-gate.ts). The error is reclassified in place, since the
 * protocol writes the status from the same object right after.
 */
export function reclassifyUnparsable(reason: unknown): void {
  if (!isUnparsable(reason)) return;
  const refusal = refused(reason);
  Object.assign(reason, { code: refusal.code, message: refusal.message });
  reason.details.push(...refusal.details);
}

/** The refusal of a request that did not parse, as our other refusals of input: `invalid_input` (errors.ts). */
function refused(err: ConnectError): ConnectError {
  return serviceError('invalid_input', err.rawMessage);
}

/** Interceptor: marks the call as reached, and a streamed request message that does not parse as INVALID_ARGUMENT. */
export function unparsableStreamRequests(): Interceptor {
  return (next) => (req) => {
    req.contextValues.set(REACHED, true);
    if (!req.stream) return next(req);
    const messages = req.message;
    return next({
      ...req,
      message: (async function* () {
        try {
          yield* messages;
        } catch (err) {
          throw isUnparsable(err) ? refused(err) : err;
        }
      })(),
    });
  };
}
