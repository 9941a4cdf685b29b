/**
 * `npm run bench:soak` (SOAK_SECONDS, default 300; SOAK_SAMPLE_SECONDS, default 20; SOAK_WORKERS, default 6):
 * does the service hold up for days, or does something grow with use and never come back? `npm start` on
 * its own embedded PostgreSQL (rate limits lifted, LOG_LEVEL=info as deployed), driven by the mixed load of
 * soak-load.ts — agent tool calls and their errors, clients gone mid-request, gRPC calls cancelled and past
 * their deadline, scans through the upload page to an analysed result — while each process (façade, core,
 * inference) is sampled: RSS, V8 heap used after a forced GC, active handles, open file descriptors, metric
 * series; PostgreSQL's connections, every table's rows, the database's size; the bytes logged. It prints each
 * figure's first and last sample and its growth per 1 000 requests (least squares over the samples after the
 * first quarter, the warm-up). Scans are kept seven days by design: their rows grow until the purge.
 */
import { rmSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { singleFace } from '../inference/support/photos.ts';
import { dataDir, npmStart, stopGroup } from '../support/npm-start.ts';
import { Load } from './soak-load.ts';
import {
  inspectorUrls,
  type Probed,
  probeProcess,
  type Sample,
  sampleDatabase,
  sampleProcess,
  slope,
} from './soak-probe.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 20);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 6);
const PLENTY = '1000000000';

const dir = dataDir();
const started = await npmStart(dir, 'node', {
  LOG_LEVEL: 'info',
  NODE_OPTIONS: '--inspect=127.0.0.1:0',
  RATE_LIMIT_REQUESTS_PER_MINUTE: PLENTY,
  RATE_LIMIT_CALLS_PER_MINUTE: PLENTY,
  RATE_LIMIT_SCANS_PER_HOUR: PLENTY,
  RATE_LIMIT_UPLOADS_PER_HOUR: PLENTY,
  RATE_LIMIT_REGISTRATIONS_PER_HOUR: PLENTY,
  LOAD_SAMPLE_CATALOG: 'true',
});
const probes: Probed[] = [];
const db = new pg.Client(`postgres://skinmatch:skinmatch-local@127.0.0.1:${started.ports.postgres}/postgres`);
const load = new Load({
  // The name npm start's façade serves its pages under (their Origin check).
  base: `http://localhost:${started.ports.facade}`,
  facadePort: started.ports.facade,
  coreAddress: `127.0.0.1:${started.ports.core}`,
});
try {
  const urls = inspectorUrls(started.output());
  for (const [name, prefix] of [
    ['facade', 'facade'],
    ['core', 'core'],
    ['inference', 'infer'],
  ] as const) {
    const url = urls.get(prefix);
    if (!url) throw new Error(`no inspector for ${name}:\n${started.output()}`);
    probes.push(await probeProcess(name, url, started.metricsPorts[name]));
  }
  await db.connect();
  const photo = await singleFace('a');

  const samples: { requests: number; at: number; values: Sample }[] = [];
  const sample = async () => {
    const values: Sample = { 'logged KB': Buffer.byteLength(started.output()) / 1024 };
    for (const probe of probes) Object.assign(values, await sampleProcess(probe));
    Object.assign(values, await sampleDatabase(db));
    samples.push({ requests: load.requests, at: Date.now(), values });
    console.log(`${Math.round((Date.now() - t0) / 1000)} s: ${load.requests} requests`);
  };
  const t0 = Date.now();
  const end = t0 + SECONDS * 1000;
  await sample();
  const running = [
    ...Array.from({ length: WORKERS }, async () => {
      while (Date.now() < end) await load.once();
    }),
    (async () => {
      while (Date.now() < end) await load.upload(photo);
    })(),
    (async () => {
      while (Date.now() < end) {
        await new Promise((r) =>
          setTimeout(r, Math.min(SAMPLE_SECONDS * 1000, Math.max(0, end - Date.now()))),
        );
        await sample();
      }
    })(),
  ];
  await Promise.all(running);
  await new Promise((r) => setTimeout(r, 3000)); // what the last requests left behind settles
  await sample();
  report(samples);
  if (process.env.SOAK_METRICS_DIR) {
    writeFileSync(`${process.env.SOAK_METRICS_DIR}/soak.log`, started.output());
    for (const probe of probes) {
      const text = await (await fetch(`http://127.0.0.1:${probe.metricsPort}/metrics`)).text();
      writeFileSync(`${process.env.SOAK_METRICS_DIR}/${probe.name}.prom`, text);
    }
  }
  for (const [failure, n] of load.failures) console.log(`unexpected failure ×${n}: ${failure}`);
} finally {
  load.close();
  for (const probe of probes) probe.inspector.close();
  await db.end().catch(() => {});
  // As Ctrl-C does: every process stops, then PostgreSQL; killed outright only if that takes too long.
  const exited = new Promise((done) => started.child.once('exit', done));
  started.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
  stopGroup(started.child);
  rmSync(dir, { recursive: true, force: true });
}

function report(samples: { requests: number; at: number; values: Sample }[]) {
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const settled = samples.slice(Math.floor(samples.length / 4));
  const seconds = (last.at - first.at) / 1000;
  console.log(
    `\n${last.requests} requests in ${Math.round(seconds)} s (${Math.round(last.requests / seconds)}/s)\n`,
  );
  console.log(
    `${'figure'.padEnd(40)}${'first'.padStart(10)}${'last'.padStart(10)}${'per 1000 req'.padStart(14)}`,
  );
  for (const key of Object.keys(last.values)) {
    const xs = settled.map((s) => s.requests);
    const ys = settled.map((s) => s.values[key] ?? 0);
    const per1000 = slope(xs, ys) * 1000;
    const f = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));
    console.log(
      `${key.padEnd(40)}${f(first.values[key] ?? 0).padStart(10)}${f(last.values[key]!).padStart(10)}${per1000.toFixed(3).padStart(14)}`,
    );
  }
}
