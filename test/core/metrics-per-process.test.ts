/**
 * Each real process exports only the series it records: core's queue and admissions gauges are not on the
 * façade's or inference's /metrics (where they read 0, and `min(skinmatch_admissions_open)` over every
 * scraped pod said "paused" forever), nor inference's stages on core's, nor the façade's tool and
 * rate-limit series elsewhere. And a façade whose DATABASE_URL does not answer says so: one warning line
 * however many requests fall back to memory, and skinmatch_rate_limits_shared 0 (1 on a façade whose
 * database answers, which logs no such line).
 */
import assert from 'node:assert/strict';
import { freePort } from '../../scripts/port.ts';
import { rpc } from '../support/mcp.ts';
import type { ProcessCluster } from '../support/process-cluster.ts';
import { startCluster } from '../support/process-cluster.ts';
import type { RunningProcess } from '../support/processes.ts';

type Process = 'facade' | 'core' | 'inference';

const FAMILIES: Record<Process, string[]> = {
  facade: [
    'skinmatch_http_request_duration_seconds',
    'skinmatch_http_requests_total',
    'skinmatch_page_streams_open',
    'skinmatch_page_streams_refused_total',
    'skinmatch_rate_limit_refusals_total',
    'skinmatch_rate_limits_shared',
    'skinmatch_slow_client_refusals_total',
    'skinmatch_tool_call_duration_seconds',
    'skinmatch_tool_calls_total',
  ],
  core: [
    'skinmatch_admissions_open',
    'skinmatch_admissions_paused',
    'skinmatch_analysis_oldest_job_age_seconds',
    'skinmatch_analysis_queue_depth',
    'skinmatch_inference_duration_seconds',
    'skinmatch_inference_serving',
    'skinmatch_rpc_server_calls_total',
    'skinmatch_rpc_server_duration_seconds',
    'skinmatch_scan_stage_duration_seconds',
  ],
  inference: [
    'skinmatch_analysis_duration_seconds',
    'skinmatch_analysis_stage_duration_seconds',
    'skinmatch_rpc_server_calls_total',
    'skinmatch_rpc_server_duration_seconds',
  ],
};

/** The password of the façade's wrong DATABASE_URL: it must never reach a log line. */
const PASSWORD = 'Rotated-Only-Here-7f3k';
const FAILING = /^rate limits: database lookups fail/;

async function scrape(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

/** The skinmatch_ metric families a scrape declares (`# TYPE` lines), sorted. */
function families(text: string): string[] {
  return [...text.matchAll(/^# TYPE (skinmatch_\w+) /gm)].map((m) => m[1]!).sort();
}

/** An unlabelled series' value, or undefined. */
function gauge(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

/** `n` MCP requests, each counted against the request budget (a database lookup, or memory). */
async function requests(facade: RunningProcess, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const answer = await rpc(facade.url, 'tools/list');
    assert.ok(answer.body?.result, `request ${i} answered: ${JSON.stringify(answer)}`);
  }
}

describe('metrics: each process exports only its own; a façade tells a failing rate-limit database', function () {
  this.timeout(180_000);
  let cluster: ProcessCluster;
  const metricsPorts = { facade: 0, core: 0, inference: 0, lost: 0 };
  let facade: RunningProcess;
  let lost: RunningProcess;

  before(async () => {
    cluster = await startCluster('metrics-per-process');
    for (const key of Object.keys(metricsPorts) as Array<keyof typeof metricsPorts>)
      metricsPorts[key] = await freePort();
    const inference = await cluster.start('inference', {
      INFERENCE_METRICS_PORT: String(metricsPorts.inference),
    });
    const core = await cluster.start('core', {
      CORE_METRICS_PORT: String(metricsPorts.core),
      INFERENCE_URL: inference.url,
      // Its first look at the queue is as it starts, not one interval later: until then the gauge read 0,
      // "paused", on every new core (the default interval is 5 s).
      ADMISSIONS_CHECK_INTERVAL_MS: '600000',
    });
    facade = await cluster.start('facade', {
      FACADE_METRICS_PORT: String(metricsPorts.facade),
      CORE_URL: core.url,
    });
    lost = await cluster.start('facade', {
      FACADE_METRICS_PORT: String(metricsPorts.lost),
      CORE_URL: core.url,
      DATABASE_URL: `postgres://skinmatch:${PASSWORD}@127.0.0.1:${await freePort()}/gone`,
    });
  });
  after(() => cluster?.stop());

  it('core alone exports the queue and admissions gauges; each process only the series it records', async () => {
    const scrapes = {} as Record<Process, string>;
    for (const role of ['facade', 'core', 'inference'] as const) {
      scrapes[role] = await scrape(metricsPorts[role]);
      assert.deepEqual(families(scrapes[role]), FAMILIES[role], role);
    }
    assert.deepEqual(families(await scrape(metricsPorts.lost)), FAMILIES.facade, 'the second façade');
    // What an alert on min() over every scraped pod sees of a core just started: admissions open.
    for (let i = 0; i < 100 && gauge(scrapes.core, 'skinmatch_admissions_open') !== 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      scrapes.core = await scrape(metricsPorts.core);
    }
    const open = Object.values(scrapes)
      .map((text) => gauge(text, 'skinmatch_admissions_open'))
      .filter((v) => v !== undefined);
    assert.deepEqual(open, [1]);
  });

  it('a façade whose database fails warns once, however many lookups fail, and exports 0', async () => {
    await requests(lost, 10);
    // After STORE_RETRY_MS (5 s) the façade asks the database again, and fails again: no second warning.
    await new Promise((r) => setTimeout(r, 5500));
    await requests(lost, 5);
    const warnings = lost.logged(FAILING);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.level, 'warn');
    assert.match(String(warnings[0]!.err), /ECONNREFUSED/);
    assert.ok(!lost.output().includes(PASSWORD), 'the password is in no log line');
    assert.equal(gauge(await scrape(metricsPorts.lost), 'skinmatch_rate_limits_shared'), 0);
  });

  it('a façade whose database answers logs no such line and exports 1', async () => {
    await requests(facade, 10);
    assert.deepEqual(facade.logged(FAILING), []);
    assert.equal(gauge(await scrape(metricsPorts.facade), 'skinmatch_rate_limits_shared'), 1);
  });
});
