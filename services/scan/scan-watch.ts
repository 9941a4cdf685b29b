/**
 * Following one scan: its state now, then each change, until it is complete or failed. Changes arrive by
 * LISTEN/NOTIFY (`scan_changed`, raised by a trigger on every write); a watcher also looks again on a timer
 * so that a notification lost while reconnecting delays an update but never loses it. Shared by WatchScan
 * (the agent) and WatchIntake (the upload page).
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { Orm } from '../core/db/orm.ts';
import { Scan } from '../core/db/scan-entity.ts';
import { serviceError } from '../shared/errors.ts';
import type { Notifications } from '../shared/notifications.ts';
import type { ScanRecord } from './scan-reads.ts';
import { isSettled } from './scan-view.ts';

/** How often a watcher looks again even without a change notification. */
const WATCH_RECHECK_MS = 5000;
const STOPPING_MESSAGE = 'This server is stopping: watch the scan again.';

export interface ScanWatchDeps {
  readonly orm: Orm;
  readonly notifications: Notifications;
  readonly now: () => Date;
  /** Aborted when the process stops taking work: every watch then ends with UNAVAILABLE. */
  readonly stopping?: AbortSignal;
}

/** What a watch starts from: any read of the scan with its status and version. */
export type WatchedScan = Pick<ScanRecord, 'id' | 'status' | 'version'>;

/**
 * Yields `first`, then the scan after each change (by its version), until it settles or `signal` aborts;
 * fails with `not_found` and `notFoundMessage` once the scan is deleted or expired, and with UNAVAILABLE
 * when the process stops: a watch has no end of its own, and would hold a stopping core to its bound, so the
 * watcher is told to watch again (the façade's page relay ends, the browser reconnects, another core answers).
 */
export async function* scanChanges<T extends WatchedScan>(
  deps: ScanWatchDeps,
  first: T,
  signal: AbortSignal,
  notFoundMessage: string,
): AsyncGenerator<T | Scan> {
  let scan: T | Scan = first;
  const wake = deps.stopping ? AbortSignal.any([signal, deps.stopping]) : signal;
  yield scan;
  while (!isSettled(scan.status)) {
    await deps.notifications.next('scan_changed', scan.id, WATCH_RECHECK_MS, wake);
    if (signal.aborted) return;
    if (deps.stopping?.aborted) throw new ConnectError(STOPPING_MESSAGE, Code.Unavailable);
    const fresh: Scan | null = await deps.orm.em.fork().findOne(Scan, { id: scan.id });
    if (!fresh || fresh.expiresAt <= deps.now()) throw serviceError('not_found', notFoundMessage);
    if (fresh.version === scan.version) continue;
    scan = fresh;
    yield scan;
  }
}
