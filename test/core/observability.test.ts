/**
 * Metrics and traces on the real processes: inference, core and the façade started as `npm start` starts
 * them (each its own process, each with its own metrics port), driven by a small load — tool calls, a
 * rate-limit refusal, one real scan analysed by inference, the operator's admissions switch — then each
 * process's `/metrics` is scraped and every series the README names must exist and have moved. The same
 * run shows the trace context arriving: a `traceparent` sent to /mcp reaches core's log lines, and the one
 * an upload carries reaches inference's through the analysis queue. Every process's log goes to
 * .data/test-logs, where the run's final check looks for secrets.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { waitForReady } from '../../scripts/ready.ts';
import { openDatabase } from '../../services/core/db/orm.ts';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { setAdmissions } from '../../services/scan/admissions.ts';
import { singleFace } from '../inference/support/photos.ts';
import { createTestDatabase } from '../support/database.ts';
import { solveAltcha } from '../support/intake.ts';
import { callTool, errorCode, JSON_RPC_HEADERS, untilScan } from '../support/mcp.ts';

const ROLES = ['inference', 'core', 'facade'] as const;
const STAGES = ['decoding', 'detecting_face', 'checking_quality', 'measuring', 'scoring'];
const CORE_STAGES = ['queued', ...STAGES, 'recording'];
type Role = (typeof ROLES)[number];
const MAIN: Record<Role, string> = {
  inference: 'services/inference/main.ts',
  core: 'services/core/main.ts',
  facade: 'facade/main.ts',
};

/** A span as an OTLP/HTTP JSON export names it, with the service that sent it. */
interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly name: string;
}

/** A stand-in OpenTelemetry collector: takes OTLP/HTTP JSON trace exports and keeps their spans. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (req.url === '/v1/traces') {
        const data = JSON.parse(body.toString('utf8'));
        for (const resource of data.resourceSpans ?? []) {
          const service = resource.resource?.attributes?.find(
            (a: { key: string }) => a.key === 'service.name',
          )?.value?.stringValue;
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({ service, traceId: span.traceId, name: span.name });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

/** One scrape, as `name{labels}` → value. */
type Scrape = Map<string, number>;

function parse(text: string): Scrape {
  const series: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

/** The value of one series: `name` with exactly these labels (in any order), or undefined. */
function value(scrape: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const [key, v] of scrape) {
    const brace = key.indexOf('{');
    const base = brace < 0 ? key : key.slice(0, brace);
    if (base !== name) continue;
    const have =
      brace < 0
        ? []
        : key
            .slice(brace + 1, -1)
            .split(',')
            .filter(Boolean)
            .sort();
    if (have.join(',') === wanted.join(',')) return v;
  }
  return undefined;
}

describe('metrics and traces of the real processes under a small load', function () {
  this.timeout(180_000);
  const children = new Map<Role, ChildProcess>();
  const logs: WriteStream[] = [];
  const ports = { facade: 0, core: 0, inference: 0 };
  const metricsPorts = { facade: 0, core: 0, inference: 0 };
  const logFiles = {} as Record<Role, string>;
  let database: { url: string; drop: () => Promise<void> };
  let dataDir: string;
  let base: string;
  const before0 = new Map<Role, Scrape>();
  let collector: Awaited<ReturnType<typeof startCollector>>;

  const scrape = async (role: Role): Promise<Scrape> => {
    const response = await fetch(`http://127.0.0.1:${metricsPorts[role]}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    return parse(await response.text());
  };

  before(async () => {
    database = await createTestDatabase();
    collector = await startCollector();
    dataDir = mkdtempSync(join(tmpdir(), 'skinmatch-observability-'));
    for (const role of ROLES) {
      ports[role] = await freePort();
      metricsPorts[role] = await freePort();
    }
    const logDir = resolve('.data/test-logs');
    mkdirSync(logDir, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      FACADE_PORT: String(ports.facade),
      CORE_PORT: String(ports.core),
      INFERENCE_PORT: String(ports.inference),
      FACADE_METRICS_PORT: String(metricsPorts.facade),
      CORE_METRICS_PORT: String(metricsPorts.core),
      INFERENCE_METRICS_PORT: String(metricsPorts.inference),
      LOG_LEVEL: 'debug',
      ADMISSIONS_CHECK_INTERVAL_MS: '100',
      RATE_LIMIT_SCANS_PER_HOUR: '3',
      // Each analysis stage waits a little, so the queue and the stages are seen while they last.
      INFERENCE_STAGE_DELAY_MS: '150',
      // Span export on, to the stand-in collector, sent every 100 ms.
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    for (const role of ROLES) {
      logFiles[role] = join(logDir, `observability-${role}.log`);
      const log = createWriteStream(logFiles[role]);
      logs.push(log);
      const child = spawn(process.execPath, [MAIN[role]], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.pipe(log);
      child.stderr!.pipe(log);
      children.set(role, child);
      assert.ok(await waitForPort(ports[role], 60_000, () => child.exitCode !== null), `${role} listens`);
      // Core listens, then migrates and loads the catalog: ready before the façade sends it work.
      if (role === 'core')
        assert.ok(await waitForReady(ports.core, 60_000, () => child.exitCode !== null), 'core is ready');
      assert.ok(await waitForPort(metricsPorts[role], 10_000), `${role}'s metrics port listens`);
    }
    base = `http://127.0.0.1:${ports.facade}`;
    for (const role of ROLES) before0.set(role, await scrape(role));
  });

  after(async () => {
    await Promise.all(
      [...children.values()].map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    );
    await Promise.all(logs.map((log) => new Promise((done) => log.end(done))));
    await database?.drop();
    collector?.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The log lines a process has written so far, parsed (non-JSON lines skipped). */
  function lines(role: Role): Record<string, unknown>[] {
    return readFileSync(logFiles[role], 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
  }

  /** The first line a process logs that matches, waiting up to 5 s: a process writes its log behind the answer. */
  async function logged(
    role: Role,
    match: (line: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown> | undefined> {
    for (let waited = 0; ; waited += 50) {
      const found = lines(role).find(match);
      if (found || waited >= 5000) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const upstreamTrace = '0af7651916cd43dd8448eb211c80319c';
  const uploadTrace = '5b8efff798038103d269b633813fc60c';
  let scan: { run_id: string; access_token: string };
  let queueSeen = { depth: 0, age: 0 };

  it('a traceparent sent to /mcp reaches core, under the façade’s request id', async () => {
    const response = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        ...JSON_RPC_HEADERS,
        traceparent: `00-${upstreamTrace}-b7ad6b7169203331-01`,
        'x-request-id': 'observability-1',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'start_skin_scan', arguments: { source: 'observability' } },
      }),
    });
    assert.equal(response.headers.get('x-request-id'), 'observability-1');
    const result = ((await response.json()) as { result: { structuredContent: typeof scan } }).result;
    scan = { run_id: result.structuredContent.run_id, access_token: result.structuredContent.access_token };
    const rpc = await logged('core', (line) => line.msg === 'rpc' && line.request_id === 'observability-1');
    assert.ok(rpc, 'core logged the StartScan call under the request id');
    assert.equal(rpc.trace_id, upstreamTrace);
  });

  it('an upload’s traceparent reaches inference through the analysis queue, and the scan completes', async () => {
    const intake = createClient(
      IntakeService,
      createConnectTransport({ baseUrl: `http://127.0.0.1:${ports.core}`, httpVersion: '2' }),
    );
    const { challengeJson } = await intake.createChallenge({ runId: scan.run_id });
    const { browserSecret } = await intake.consent({
      runId: scan.run_id,
      consentVersion: CONSENT_VERSION,
      challengeSolution: await solveAltcha(challengeJson),
    });
    await intake.uploadPhoto(
      { runId: scan.run_id, browserSecret, photo: await singleFace('a') },
      { headers: { traceparent: `00-${uploadTrace}-a3ce929d0e0e4736-01`, 'x-request-id': 'upload-1' } },
    );
    // While it is analysed (each stage slowed), the queue shows it.
    const watching = (async () => {
      for (let i = 0; i < 100; i++) {
        const core = await scrape('core');
        queueSeen = {
          depth: Math.max(queueSeen.depth, value(core, 'skinmatch_analysis_queue_depth') ?? 0),
          age: Math.max(queueSeen.age, value(core, 'skinmatch_analysis_oldest_job_age_seconds') ?? 0),
        };
        if (queueSeen.depth > 0 && queueSeen.age > 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const done = await untilScan(base, scan, (s) => s.status === 'complete' || s.status === 'failed', 60_000);
    await watching;
    assert.equal(done.status, 'complete');
    const analysed = await logged(
      'inference',
      (line) => line.msg === 'rpc' && String(line.procedure).endsWith('/AnalyzeFace'),
    );
    assert.ok(analysed, 'inference logged the AnalyzeFace call');
    assert.equal(analysed.trace_id, uploadTrace, 'the upload’s trace reached inference');
    assert.equal(analysed.request_id, 'upload-1');
  });

  it('every named series exists on its process’s /metrics and moved under the load', async () => {
    // A little more load: tools/list, an invalid call, and scans past the hourly budget (3) → rate_limited.
    const invalid = errorCode(await callTool(base, 'get_skin_scan', { run_id: 'nope', access_token: 'x' }));
    assert.ok(invalid);
    let refused = 0;
    for (let i = 0; i < 4; i++) {
      const result = await callTool(base, 'start_skin_scan', { source: 'observability' });
      if (errorCode(result) === 'rate_limited') refused++;
    }
    assert.ok(refused >= 1);
    // The operator pauses admissions; core's next look at the queue shows it.
    const orm = await openDatabase(database.url);
    try {
      await setAdmissions(orm.em.fork(), false);
    } finally {
      await orm.close();
    }
    // Waited for (every 100 ms, a query each): a fixed 500 ms assumed core's look came within it, which a
    // loaded machine need not.
    for (let i = 0; value(await scrape('core'), 'skinmatch_admissions_open') !== 0; i++) {
      assert.ok(i < 200, 'core never showed admissions paused');
      await new Promise((r) => setTimeout(r, 50));
    }
    const now = new Map<Role, Scrape>();
    for (const role of ROLES) now.set(role, await scrape(role));
    const moved = (role: Role, name: string, labels: Record<string, string> = {}) => {
      const after = value(now.get(role)!, name, labels);
      assert.ok(after !== undefined, `${role}: ${name}${JSON.stringify(labels)} exists`);
      const earlier = value(before0.get(role)!, name, labels) ?? 0;
      assert.ok(after > earlier, `${role}: ${name}${JSON.stringify(labels)} moved (${earlier} → ${after})`);
    };

    // The façade: per-tool counts and latency, rate-limit refusals by budget, HTTP requests by route.
    moved('facade', 'skinmatch_tool_calls_total', { tool: 'start_skin_scan', outcome: 'ok' });
    moved('facade', 'skinmatch_tool_calls_total', { tool: 'start_skin_scan', outcome: 'rate_limited' });
    moved('facade', 'skinmatch_tool_calls_total', { tool: 'get_skin_scan', outcome: invalid });
    moved('facade', 'skinmatch_tool_call_duration_seconds_count', { tool: 'get_skin_scan', outcome: 'ok' });
    moved('facade', 'skinmatch_tool_call_duration_seconds_sum', { tool: 'start_skin_scan', outcome: 'ok' });
    moved('facade', 'skinmatch_rate_limit_refusals_total', { budget: 'tool:start_skin_scan' });
    const mcpPost = { method: 'POST', route: '/mcp' };
    moved('facade', 'skinmatch_http_requests_total', { ...mcpPost, status: '200' });
    moved('facade', 'skinmatch_http_request_duration_seconds_count', mcpPost);
    // Core: per-RPC counts and latency, the scan's stages, inference latency, queue, admissions.
    const startScan = { method: 'skinmatch.v1.ScanService/StartScan', code: 'OK' };
    moved('core', 'skinmatch_rpc_server_calls_total', startScan);
    moved('core', 'skinmatch_rpc_server_duration_seconds_count', startScan);
    moved('core', 'skinmatch_rpc_server_calls_total', {
      method: 'skinmatch.v1.IntakeService/UploadPhoto',
      code: 'OK',
    });
    for (const stage of CORE_STAGES) moved('core', 'skinmatch_scan_stage_duration_seconds_count', { stage });
    moved('core', 'skinmatch_inference_duration_seconds_count', { outcome: 'complete' });
    assert.ok(queueSeen.depth >= 1, `the queue depth moved (${queueSeen.depth})`);
    assert.ok(queueSeen.age > 0, `the oldest job's age moved (${queueSeen.age})`);
    const coreNow = now.get('core')!;
    assert.equal(value(before0.get('core')!, 'skinmatch_admissions_open'), 1);
    assert.equal(value(coreNow, 'skinmatch_admissions_open'), 0);
    assert.equal(value(coreNow, 'skinmatch_admissions_paused', { reason: 'operator' }), 1);
    assert.equal(value(coreNow, 'skinmatch_admissions_paused', { reason: 'backlog' }), 0);
    // Inference: its RPC, the analysis and its stages.
    moved('inference', 'skinmatch_rpc_server_calls_total', {
      method: 'skinmatch.inference.v1.InferenceService/AnalyzeFace',
      code: 'OK',
    });
    moved('inference', 'skinmatch_analysis_duration_seconds_count', { outcome: 'complete' });
    for (const stage of STAGES)
      moved('inference', 'skinmatch_analysis_stage_duration_seconds_count', { stage });
    // The default process metrics, on every process.
    for (const role of ROLES) {
      moved(role, 'process_cpu_seconds_total');
      assert.ok(value(now.get(role)!, 'nodejs_heap_size_used_bytes')! > 0, role);
    }
  });

  it('exports the spans of both traces from every process they crossed, when OTLP export is configured', async () => {
    const spansOf = (traceId: string) => collector.spans.filter((span) => span.traceId === traceId);
    for (let i = 0; i < 100 && spansOf(uploadTrace).every((s) => s.service !== 'skinmatch-inference'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const names = (traceId: string, service: string) =>
      spansOf(traceId)
        .filter((span) => span.service === service)
        .map((span) => span.name);
    assert.ok(names(upstreamTrace, 'skinmatch-facade').includes('mcp.tool start_skin_scan'));
    assert.ok(names(upstreamTrace, 'skinmatch-facade').includes('skinmatch.v1.ScanService/StartScan'));
    assert.ok(names(upstreamTrace, 'skinmatch-core').includes('skinmatch.v1.ScanService/StartScan'));
    assert.ok(names(uploadTrace, 'skinmatch-core').includes('skinmatch.v1.IntakeService/UploadPhoto'));
    assert.ok(names(uploadTrace, 'skinmatch-core').includes('scan.analyze'));
    assert.ok(
      names(uploadTrace, 'skinmatch-inference').includes(
        'skinmatch.inference.v1.InferenceService/AnalyzeFace',
      ),
    );
  });

  it('serves nothing else on the metrics port', async () => {
    assert.equal((await fetch(`http://127.0.0.1:${metricsPorts.core}/`)).status, 404);
    assert.equal(
      (await fetch(`http://127.0.0.1:${metricsPorts.core}/metrics`, { method: 'POST' })).status,
      405,
    );
  });
});
