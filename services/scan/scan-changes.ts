/**
 * Scan change announcements for WatchScan. A database trigger NOTIFYs `scan_changed` with the scan id on
 * every write, whichever replica made it; one LISTEN connection per core process fans the ids out to the
 * watchers of that scan. Watchers also look again on a timer, so a notification lost while the listening
 * connection was being re-established delays an update but never loses it.
 */
import { EventEmitter, once } from 'node:events';
import pg from 'pg';
import type { Logger } from '../shared/logger.ts';

const RECONNECT_MS = 1000;

export class ScanChanges {
  readonly #databaseUrl: string;
  readonly #logger: Logger;
  readonly #events = new EventEmitter({ captureRejections: false });
  #client: pg.Client | undefined;
  #closed = false;

  constructor(databaseUrl: string, logger: Logger) {
    this.#databaseUrl = databaseUrl;
    this.#logger = logger;
    this.#events.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#databaseUrl });
    client.on('notification', (msg) => {
      if (msg.payload) this.#events.emit(msg.payload);
    });
    client.on('error', (err) => this.#logger.warn({ err }, 'scan change listener failed'));
    client.on('end', () => this.#reconnectLater());
    await client.connect();
    await client.query('listen scan_changed');
    this.#client = client;
  }

  /** Resolves when the scan changes, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  async next(runId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const timeout = AbortSignal.timeout(timeoutMs);
    await once(this.#events, runId, { signal: AbortSignal.any([timeout, signal]) }).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#client?.end().catch(() => undefined);
  }

  #reconnectLater(): void {
    this.#client = undefined;
    if (this.#closed) return;
    setTimeout(() => {
      if (this.#closed) return;
      this.start().catch((err) => {
        this.#logger.warn({ err }, 'scan change listener could not reconnect');
        this.#reconnectLater();
      });
    }, RECONNECT_MS).unref();
  }
}
