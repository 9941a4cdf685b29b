/**
 * What the soak samples of a running `npm start`: per Node process (through its inspector, opened with
 * `--inspect=127.0.0.1:0`) V8's heap used after a forced GC and its active handles, from /proc its RSS and
 * open file descriptors, from its metrics port the number of series; of PostgreSQL its connections and
 * every table's row count; and the bytes the processes have logged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

export type Sample = Record<string, number>;

/** A Chrome DevTools Protocol session on one process's inspector. */
export class Inspector {
  readonly #socket: WebSocket;
  #next = 1;
  readonly #waiting = new Map<number, (result: any) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data));
      this.#waiting.get(message.id)?.(message.result);
      this.#waiting.delete(message.id);
    });
  }

  static open(url: string): Promise<Inspector> {
    const socket = new WebSocket(url);
    return new Promise((done, fail) => {
      socket.addEventListener('open', () => done(new Inspector(socket)), { once: true });
      socket.addEventListener('error', () => fail(new Error(`inspector ${url} refused`)), { once: true });
    });
  }

  send(method: string, params: object = {}): Promise<any> {
    const id = this.#next++;
    this.#socket.send(JSON.stringify({ id, method, params }));
    return new Promise((done) => this.#waiting.set(id, done));
  }

  async evaluate(expression: string): Promise<any> {
    const { result } = await this.send('Runtime.evaluate', { expression, returnByValue: true });
    return result.value;
  }

  close(): void {
    this.#socket.close();
  }
}

/** The inspector addresses npm start's processes printed, by process name (its log prefix). */
export function inspectorUrls(output: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, name, url] of output.matchAll(/^(\w+)\s*\| Debugger listening on (ws:\S+)/gm))
    found.set(name!, url!);
  return found;
}

export interface Probed {
  readonly name: string;
  readonly inspector: Inspector;
  readonly pid: number;
  readonly metricsPort: number;
}

export async function probeProcess(name: string, url: string, metricsPort: number): Promise<Probed> {
  const inspector = await Inspector.open(url);
  return { name, inspector, pid: await inspector.evaluate('process.pid'), metricsPort };
}

const statusKb = (pid: number, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

export async function sampleProcess(p: Probed): Promise<Sample> {
  await p.inspector.send('HeapProfiler.collectGarbage');
  const { usedSize } = await p.inspector.send('Runtime.getHeapUsage');
  const handles = await p.inspector.evaluate('process._getActiveHandles().length');
  const metrics = await (await fetch(`http://127.0.0.1:${p.metricsPort}/metrics`)).text();
  const series = metrics.split('\n').filter((line) => line && !line.startsWith('#')).length;
  return {
    [`${p.name} rss MB`]: statusKb(p.pid, 'VmRSS') / 1024,
    [`${p.name} heap used after GC MB`]: usedSize / 2 ** 20,
    [`${p.name} handles`]: handles,
    [`${p.name} fds`]: readdirSync(`/proc/${p.pid}/fd`).length,
    [`${p.name} metric series`]: series,
  };
}

/** PostgreSQL's connections (by application) and the row count of every table of ours and the queue's. */
export async function sampleDatabase(client: pg.Client): Promise<Sample> {
  const sample: Sample = {};
  const { rows: connections } = await client.query(
    `SELECT coalesce(nullif(application_name, ''), 'other') AS app, count(*)::int AS n
       FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1`,
  );
  sample['pg connections'] = connections.reduce((sum, row) => sum + row.n, 0);
  const { rows: tables } = await client.query(
    `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  for (const { s, t } of tables) {
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${s}"."${t}"`);
    sample[`rows ${s === 'public' ? '' : `${s}.`}${t}`] = rows[0].n;
  }
  // Registered clients kept past a month (each registration's was kept 10 years; its registration access
  // token goes with it).
  const { rows: kept } = await client.query(
    `SELECT count(*)::int AS n FROM oauth_state WHERE model = 'Client' AND expires_at > now() + interval '31 days'`,
  );
  sample['oauth clients kept > 31 days'] = kept[0].n;
  const { rows: size } = await client.query('SELECT pg_database_size(current_database())::float8 AS b');
  sample['database MB'] = size[0].b / 2 ** 20;
  return sample;
}

/** Least-squares slope of `y` over `x`. */
export function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
