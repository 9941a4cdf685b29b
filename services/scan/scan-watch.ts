/**
 * Following one scan: its state now, then each change, until it is complete or failed. Changes arrive by
 * LISTEN/NOTIFY (`scan_changed`, raised by a trigger on every write); the scan is also looked at again on a
 * timer so that a notification lost while reconnecting delays an update but never loses it. One read per
 * change or look serves every watcher of the scan (scan-feeds.ts). Shared by WatchScan (the agent) and
 * WatchIntake (the upload page).
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { Orm } from '../core/db/orm.ts';
import type { Scan } from '../core/db/scan-entity.ts';
import { serviceError } from '../shared/errors.ts';
import type { Notifications } from '../shared/notifications.ts';
import { scanFeeds } from './scan-feeds.ts';
import type { ScanRecord } from './scan-reads.ts';
import { isSettled } from './scan-view.ts';

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
  const feeds = scanFeeds(deps.orm, deps.notifications);
  while (!isSettled(scan.status)) {
    const fresh = await feeds.next(scan.id, wake);
    if (signal.aborted) return;
    if (deps.stopping?.aborted) throw new ConnectError(STOPPING_MESSAGE, Code.Unavailable);
    if (!fresh || fresh.expiresAt <= deps.now()) throw serviceError('not_found', notFoundMessage);
    // A read shared with other watchers may predate this watcher's own first read: only newer is news.
    if (fresh.version <= scan.version) continue;
    scan = fresh;
    yield scan;
  }
}
