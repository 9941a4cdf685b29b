/**
 * A small closed-loop load generator: `concurrency` callers, each calling `call` back to back. Given the
 * pids of the processes that serve the calls, it also reports their CPU time per request (from /proc, on
 * Linux), which a busy shared machine disturbs far less than requests/s.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface LoadResult {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** CPU microseconds the serving processes spent per request, when their pids were given. */
  readonly cpuUs?: number;
  /** The same, for each serving process in the order given. */
  readonly cpuUsEach?: readonly number[];
  /** CPU microseconds this (the load-generating) process spent per request. */
  readonly callerCpuUs: number;
}

export async function load(
  call: () => Promise<unknown>,
  durationMs: number,
  concurrency: number,
  servers: readonly number[] = [],
): Promise<LoadResult> {
  const cpuBefore = servers.map((pid) => cpuMs([pid]));
  const callerBefore = process.cpuUsage();
  const latencies: number[] = [];
  const end = performance.now() + durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const caller = process.cpuUsage(callerBefore);
  const cpuUsEach = servers.map((pid, i) => ((cpuMs([pid]) - cpuBefore[i]!) * 1000) / latencies.length);
  const cpuUs = servers.length > 0 ? cpuUsEach.reduce((a, b) => a + b, 0) : undefined;
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    cpuUs,
    cpuUsEach: servers.length > 1 ? cpuUsEach : undefined,
    callerCpuUs: (caller.user + caller.system) / latencies.length,
  };
}

/** User and system CPU time of the processes so far, in ms (/proc/PID/stat fields 14 and 15, in ticks of
 * 10 ms on Linux's usual USER_HZ of 100). */
export function cpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/**
 * CPU time of a PostgreSQL server so far, in ms: the postmaster's own and that of its children, live
 * (backends, background writers: /proc/PID/stat fields 14 and 15) and ended (the postmaster's fields 16
 * and 17), so that backends a run opens or closes are counted too.
 */
export function postgresCpuMs(dataDir: string): number {
  const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let fields: string[];
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    } catch {
      continue; // ended meanwhile: counted among the postmaster's ended children
    }
    if (Number(name) === postmaster)
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

export function row(name: string, r: LoadResult): string {
  const each = r.cpuUsEach ? ` (${r.cpuUsEach.map((us) => us.toFixed(0)).join(' + ')})` : '';
  const cpu = r.cpuUs === undefined ? '' : `   server CPU ${r.cpuUs.toFixed(0).padStart(5)} µs/req${each}`;
  const caller = `   caller CPU ${r.callerCpuUs.toFixed(0).padStart(4)} µs/req`;
  return `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms${caller}${cpu}`;
}
