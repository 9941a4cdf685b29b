/**
 * Core's transport to inference: Connect on HTTP/2 (h2c), binary, traced, on one connection whose session
 * does not refuse the photos core has queued on it (INTERNAL_SESSION_OPTIONS).
 */
import type { Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { INTERNAL_SESSION_OPTIONS } from '../shared/internal-transport.ts';
import { clientTelemetry } from '../shared/telemetry.ts';

export function createInferenceTransport(baseUrl: string): Transport {
  return createConnectTransport({
    baseUrl,
    httpVersion: '2',
    useBinaryFormat: true,
    interceptors: [clientTelemetry()],
    nodeOptions: INTERNAL_SESSION_OPTIONS,
  });
}
