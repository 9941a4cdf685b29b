/**
 * What happens to a call the protocol ends before any interceptor runs — a unary request too large, that
 * does not parse, compressed in an encoding we lack, with a bad timeout: connect-es reads and parses a unary
 * request before it calls the interceptors, so server.ts's call log never saw these. The request gate runs
 * first of all (before the body is read) and watches the call's signal, which the protocol aborts with the
 * very error it then writes. Such a call is:
 * - logged and counted once like any other (call-record.ts), with `refused: true`, never its payload;
 * - INVALID_ARGUMENT if its message did not parse (request-parse.ts);
 * - answered with `grpc-accept-encoding` if refused UNIMPLEMENTED for its `grpc-encoding`: the gRPC spec
 *   (doc/compression.md) asks for that header, and connect-es puts it in the error's metadata, whose
 *   protocol headers it then drops.
 */
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { RECORDED, recordCall } from './call-record.ts';
import type { Logger } from './logger.ts';
import { secondsSince } from './metrics.ts';
import { REACHED, reclassifyUnparsable } from './request-parse.ts';

const GRPC_ACCEPT_ENCODING = 'grpc-accept-encoding';

export function callGate(logger: Logger): (context: HandlerContext) => void {
  return (context) => {
    const started = performance.now();
    const { signal } = context;
    signal.addEventListener(
      'abort',
      () => {
        // Reached: the call log records it, and its errors are ours.
        if (context.values.get(REACHED)) return;
        const reason = ConnectError.from(signal.reason);
        reclassifyUnparsable(reason);
        const accepted = reason.metadata.get(GRPC_ACCEPT_ENCODING);
        if (accepted !== null && context.protocolName === 'grpc')
          context.responseHeader.set(GRPC_ACCEPT_ENCODING, accepted);
        context.values.set(RECORDED, true);
        recordCall(logger, {
          service: context.service.typeName,
          method: context.method.name,
          code: Code[reason.code],
          seconds: secondsSince(started),
          refused: true,
        });
      },
      { once: true },
    );
  };
}
