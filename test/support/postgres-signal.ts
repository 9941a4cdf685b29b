/** Stopping and resuming a test's own PostgreSQL server as a stalled disk or a frozen VM does. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Signals the server's postmaster and every process of it (each backend leads a process group of its own). */
export function signalServer(pgDir: string, signal: NodeJS.Signals): void {
  const postmaster = readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', postmaster], { encoding: 'utf8' });
  for (const pid of [postmaster, ...children.split(/\s+/).filter(Boolean)]) process.kill(Number(pid), signal);
}
