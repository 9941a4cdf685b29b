/**
 * One call's log line and RPC metrics (skinmatch_rpc_server_calls_total, _duration_seconds): the same for a
 * call our code served (server.ts's call log) and for one refused before it ran (call-gate.ts). Never a
 * payload.
 */
import { createContextKey } from '@connectrpc/connect';
import type { Logger } from './logger.ts';
import { rpcCalls, rpcDuration } from './metrics.ts';

/** The services probes call every few seconds (health checks, the façade's /health): logged at debug. */
const PROBE_SERVICES = new Set(['grpc.health.v1.Health', 'skinmatch.v1.StatusService']);

/** Set once call-gate.ts has recorded a call: the call log records it no second time. */
export const RECORDED = createContextKey(false, { description: 'skinmatch.call-recorded' });

export interface CallRecord {
  /** The service's full name (`skinmatch.v1.ScanService`). */
  readonly service: string;
  readonly method: string;
  /** 'ok' or the Connect code's name (`InvalidArgument`). */
  readonly code: string;
  readonly seconds: number;
  /** Set for a call refused before the service saw it (too large, unparsable, bad compression). */
  readonly refused?: boolean;
}

export function recordCall(logger: Logger, call: CallRecord): void {
  // `package.Service/Method`, as the metrics' label: the URL would carry whatever Host the client sent.
  const procedure = `${call.service}/${call.method}`;
  const labels = { method: procedure, code: call.code === 'ok' ? 'OK' : call.code };
  rpcCalls.inc(labels);
  rpcDuration.observe(labels, call.seconds);
  // Probes call grpc.health.v1 every few seconds, and the façade's /health (itself a probe's route,
  // logged at debug there) StatusService: their lines only at debug.
  const level = PROBE_SERVICES.has(call.service) ? 'debug' : 'info';
  const line = { procedure, code: call.code, ms: Math.round(call.seconds * 1000) };
  logger[level](call.refused ? { ...line, refused: true } : line, 'rpc');
}
