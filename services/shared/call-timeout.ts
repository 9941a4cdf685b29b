/**
 * The timeout a client sent with its call: gRPC and gRPC-Web in `grpc-timeout` (at most 8 digits and a unit,
 * so up to 99 999 999 hours), Connect in `connect-timeout-ms` (up to 10 digits). connect-node arms a Node
 * timer for it, and Node runs a timer past 2^31 - 1 ms (24.8 days) after 1 ms instead: a call with a deadline
 * a month away (a long watch) failed at once with DEADLINE_EXCEEDED, and a TimeoutOverflowWarning went to
 * stderr outside the log. Such a timeout is taken as the longest a timer holds, which no call here outlives.
 */
import type http from 'node:http';
import { parseTimeout as parseConnectTimeout } from '@connectrpc/connect/protocol-connect';
import { parseTimeout as parseGrpcTimeout } from '@connectrpc/connect/protocol-grpc';

/** The longest delay a Node timer holds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The call's timeout as its client sent it (gRPC and gRPC-Web: grpc-timeout; Connect: connect-timeout-ms). */
export function callTimeoutMs(header: Headers): number | undefined {
  const grpcTimeout = header.get('grpc-timeout');
  if (grpcTimeout !== null) return parseGrpcTimeout(grpcTimeout, Number.MAX_SAFE_INTEGER).timeoutMs;
  const connectTimeout = header.get('connect-timeout-ms');
  if (connectTimeout !== null) return parseConnectTimeout(connectTimeout, Number.MAX_SAFE_INTEGER).timeoutMs;
  return undefined;
}

/** Rewrites a timeout longer than a timer holds, in the request's headers, to the longest one that does. */
export function boundCallTimeout(headers: http.IncomingHttpHeaders): void {
  const grpcTimeout = headers['grpc-timeout'];
  if (typeof grpcTimeout === 'string') {
    const { timeoutMs } = parseGrpcTimeout(grpcTimeout, Number.MAX_SAFE_INTEGER);
    if (timeoutMs !== undefined && timeoutMs > MAX_TIMER_MS)
      headers['grpc-timeout'] = `${Math.floor(MAX_TIMER_MS / 1000)}S`;
  }
  const connectTimeout = headers['connect-timeout-ms'];
  if (typeof connectTimeout === 'string') {
    const { timeoutMs } = parseConnectTimeout(connectTimeout, Number.MAX_SAFE_INTEGER);
    if (timeoutMs !== undefined && timeoutMs > MAX_TIMER_MS)
      headers['connect-timeout-ms'] = String(MAX_TIMER_MS);
  }
}
