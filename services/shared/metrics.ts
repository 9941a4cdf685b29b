/**
 * Prometheus metrics (prom-client): every series the processes record, and the small internal HTTP server
 * that serves them at `/metrics` on each process's metrics port. Each process exports only the series it
 * records (`EXPORTED`, as the README's "Metrics" lists them): a gauge core sets would read 0 on the
 * façade and inference, and `min()` over every scraped pod would see admissions paused forever. Label
 * values are bounded: tool names the façade serves, RPC methods core and inference serve, outcome codes,
 * stages, budgets by name.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Metric, Registry } from 'prom-client';
import type { Logger } from './logger.ts';

export const registry = new Registry();
// Each series below registers nowhere at first: startMetricsServer puts this process's (`EXPORTED`) in.

/** Seconds; from a quick cache hit to a slow analysis. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

// The façade.
export const toolCalls = new Counter({
  name: 'skinmatch_tool_calls_total',
  help: 'MCP tool calls answered by the façade, by tool and outcome (ok or the error code).',
  labelNames: ['tool', 'outcome'] as const,
  registers: [],
});
export const toolCallDuration = new Histogram({
  name: 'skinmatch_tool_call_duration_seconds',
  help: 'Time from a tool call reaching the façade to its answer, by tool and outcome.',
  labelNames: ['tool', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});
export const httpRequests = new Counter({
  name: 'skinmatch_http_requests_total',
  help: 'HTTP requests the façade answered (its pages, the authorization server, /mcp, /health…), by method, route template (never the path: a path no route serves is `/…` or `/segment/…`) and status code (`none`: the connection closed before an answer).',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [],
});
export const httpRequestDuration = new Histogram({
  name: 'skinmatch_http_request_duration_seconds',
  help: 'Time from a request reaching the façade to its answer ending (a progress stream: its whole life), by method and route template.',
  labelNames: ['method', 'route'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});
export const rateLimitRefusals = new Counter({
  name: 'skinmatch_rate_limit_refusals_total',
  help: 'Calls and uploads refused as rate_limited, by budget (calls, tool:NAME, uploads).',
  labelNames: ['budget'] as const,
  registers: [],
});
export const rateLimitsShared = new Gauge({
  name: 'skinmatch_rate_limits_shared',
  help: '1 while the façade counts rate limits in the shared database, 0 while it counts them in its own memory (no DATABASE_URL, or its lookups fail or time out).',
  registers: [],
});
export const pageStreamsOpen = new Gauge({
  name: 'skinmatch_page_streams_open',
  help: 'Progress streams of the upload page (GET /scan/:id/events) this façade holds open.',
  registers: [],
});
export const pageStreamsRefused = new Counter({
  name: 'skinmatch_page_streams_refused_total',
  help: 'Progress streams of the upload page refused, by bound: scan or network (the façade’s, 429), core (its GRPC_MAX_WATCHES, 503).',
  labelNames: ['bound'] as const,
  registers: [],
});
export const slowClientRefusals = new Counter({
  name: 'skinmatch_slow_client_refusals_total',
  help: 'Connections and requests the façade refused or cut for slow clients, by bound: connections (a network over its open connections, 429), bodies (over its request bodies arriving at once, 429), body_rate (a body slower than the minimum rate, cut: 408), headers (headers not whole within their bound: 408).',
  labelNames: ['bound'] as const,
  registers: [],
});

// Core and inference: every RPC they serve.
export const rpcCalls = new Counter({
  name: 'skinmatch_rpc_server_calls_total',
  help: 'RPCs served (Connect, gRPC, gRPC-Web), by method (service/Method) and outcome code (OK or the gRPC code).',
  labelNames: ['method', 'code'] as const,
  registers: [],
});
export const rpcDuration = new Histogram({
  name: 'skinmatch_rpc_server_duration_seconds',
  help: 'Time to serve an RPC (to the last message of a streamed answer), by method and outcome code.',
  labelNames: ['method', 'code'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});

// Core: the scans' analysis.
export const scanStageDuration = new Histogram({
  name: 'skinmatch_scan_stage_duration_seconds',
  help: 'Time a scan spent in each stage of its analysis, as the scan worker saw it: queued (photo stored to analysis start), the inference stages, recording (the outcome written).',
  labelNames: ['stage'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});
export const inferenceDuration = new Histogram({
  name: 'skinmatch_inference_duration_seconds',
  help: 'One AnalyzeFace call from core to inference, by outcome (complete, failed: the photo was refused, error: no outcome).',
  labelNames: ['outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});
export const inferenceServing = new Gauge({
  name: 'skinmatch_inference_serving',
  help: '1 while inference answers core’s health check SERVING (every 5 s), 0 while it does not: analyses fail until it does.',
  registers: [],
});
export const analysisQueueDepth = new Gauge({
  name: 'skinmatch_analysis_queue_depth',
  help: 'Analysis jobs queued or running, at core’s last look at the queue (ADMISSIONS_CHECK_INTERVAL_MS).',
  registers: [],
});
export const analysisOldestJobAge = new Gauge({
  name: 'skinmatch_analysis_oldest_job_age_seconds',
  help: 'Age of the oldest analysis job queued or running, at core’s last look (0: none).',
  registers: [],
});
export const admissionsOpen = new Gauge({
  name: 'skinmatch_admissions_open',
  help: '1 while new scans are admitted, 0 while they are paused (by the operator or the backlog).',
  registers: [],
});
export const admissionsPaused = new Gauge({
  name: 'skinmatch_admissions_paused',
  help: '1 while new scans are paused for this reason (operator: the switch; backlog: automatic admissions), else 0.',
  labelNames: ['reason'] as const,
  registers: [],
});

// Inference.
export const analysisStageDuration = new Histogram({
  name: 'skinmatch_analysis_stage_duration_seconds',
  help: 'Time inference spent in each stage of one face analysis.',
  labelNames: ['stage'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});
export const analysisDuration = new Histogram({
  name: 'skinmatch_analysis_duration_seconds',
  help: 'One whole face analysis in inference, by outcome (complete, failed, error).',
  labelNames: ['outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [],
});

/** The series each process records, and so exports. */
export type MetricsProcess = 'facade' | 'core' | 'inference';
const RPC: readonly Metric[] = [rpcCalls, rpcDuration];
export const EXPORTED: Readonly<Record<MetricsProcess, readonly Metric[]>> = {
  facade: [
    httpRequests,
    httpRequestDuration,
    toolCalls,
    toolCallDuration,
    rateLimitRefusals,
    rateLimitsShared,
    pageStreamsOpen,
    pageStreamsRefused,
    slowClientRefusals,
  ],
  core: [
    ...RPC,
    scanStageDuration,
    inferenceDuration,
    inferenceServing,
    analysisQueueDepth,
    analysisOldestJobAge,
    admissionsOpen,
    admissionsPaused,
  ],
  inference: [...RPC, analysisStageDuration, analysisDuration],
};

/** The admissions gauges from one reading of the switch and the backlog. */
export function recordAdmissions(pausedByOperator: boolean, pausedByBacklog: boolean): void {
  admissionsOpen.set(pausedByOperator || pausedByBacklog ? 0 : 1);
  admissionsPaused.set({ reason: 'operator' }, pausedByOperator ? 1 : 0);
  admissionsPaused.set({ reason: 'backlog' }, pausedByBacklog ? 1 : 0);
}

/** Tool names the façade serves: any other name a client sends is counted as `unknown`. */
const knownTools = new Set<string>();
export function registerTools(names: Iterable<string>): void {
  for (const name of names) knownTools.add(name);
}
export function toolLabel(name: unknown): string {
  return typeof name === 'string' && knownTools.has(name) ? name : 'unknown';
}

/** Seconds since a `performance.now()` reading. */
export function secondsSince(started: number): number {
  return (performance.now() - started) / 1000;
}

export interface MetricsEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

let registered = false;

/** This process's series and prom-client's defaults, into the registry once. */
function register(process: MetricsProcess): void {
  if (registered) return;
  registered = true;
  for (const metric of EXPORTED[process]) registry.registerMetric(metric);
  collectDefaultMetrics({ register: registry });
}

/**
 * Serves `GET /metrics` (the series `process` records, with prom-client's default `process_…` and
 * `nodejs_…` series) on an internal port. Port 0 turns it off. A port
 * that cannot be bound is logged as an error and the process goes on without metrics: they are never
 * worth an outage.
 */
export async function startMetricsServer(options: {
  readonly process: MetricsProcess;
  readonly port: number;
  readonly host: string;
  readonly logger: Logger;
}): Promise<MetricsEndpoint | undefined> {
  const { port, host, logger } = options;
  if (port === 0) {
    logger.info('metrics endpoint off (its port is 0)');
    return undefined;
  }
  register(options.process);
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404).end();
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType }).end(text);
      },
      (err: Error) => {
        logger.error({ err: err.message }, 'metrics: collecting failed');
        res.writeHead(500).end();
      },
    );
  });
  const bound = await new Promise<boolean>((resolve) => {
    server.once('error', (err) => {
      logger.error({ err: err.message, host, port }, 'metrics endpoint could not listen: no metrics');
      resolve(false);
    });
    server.listen(port, host, () => resolve(true));
  });
  if (!bound) return undefined;
  const actual = (server.address() as AddressInfo).port;
  logger.info({ host, port: actual }, 'metrics endpoint listening (/metrics)');
  return {
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
