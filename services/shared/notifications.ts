/**
 * PostgreSQL LISTEN/NOTIFY, fanned out in-process. Triggers announce changes (`scan_changed` with a scan
 * id, `catalog_changed` after catalog writes) whichever replica made them; one listening connection per
 * process hands them to whoever waits. Waiters also look again on a timer, so a notification lost while
 * the connection was being re-established delays an update but never loses it. While the database cannot
 * be reached, one attempt a second: a failed connect also ends its client, and both once scheduled a retry,
 * so the attempts doubled every second (2^30 timers and a log line each after half a minute of outage:
 * the process ran out of memory). Once listening again, `onListening` listeners are called: whatever was
 * announced while nobody listened is lost, so each listener looks again at what it keeps (the catalog
 * reloads: catalog-store.ts).
 */
import { EventEmitter, once } from 'node:events';
import pg from 'pg';
import type { Logger } from './logger.ts';

const RECONNECT_MS = 1000;
/** The in-process event of listening again after a lost connection (no channel can be named so). */
const LISTENING_AGAIN = Symbol('listening again');

export class Notifications {
  readonly #databaseUrl: string;
  readonly #channels: readonly string[];
  readonly #logger: Logger;
  readonly #events = new EventEmitter({ captureRejections: false });
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  /** The listening connection was lost: the next start() listens again. */
  #lost = false;

  constructor(databaseUrl: string, channels: readonly string[], logger: Logger) {
    this.#databaseUrl = databaseUrl;
    this.#channels = channels;
    this.#logger = logger;
    this.#events.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#databaseUrl });
    client.on('notification', (msg) => {
      this.#events.emit(msg.channel, msg.payload ?? '');
      if (msg.payload) this.#events.emit(`${msg.channel}:${msg.payload}`);
    });
    client.on('error', (err) => {
      if (!this.#closed) this.#logger.warn({ err: err.message }, 'notification listener failed');
    });
    // Only the listening connection's end asks for another; a client that never got that far is the
    // caller's to retry (start() rejects).
    client.on('end', () => {
      if (this.#client === client) this.#reconnectLater();
    });
    try {
      await client.connect();
      for (const channel of this.#channels) await client.query(`listen ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    const again = this.#lost;
    this.#client = client;
    this.#lost = false;
    if (again) this.#events.emit(LISTENING_AGAIN);
  }

  /**
   * Calls `listener` each time this process listens again after losing its connection: notifications sent
   * meanwhile were not heard.
   */
  onListening(listener: () => void): void {
    this.#events.on(LISTENING_AGAIN, listener);
  }

  /** Calls `listener` with the payload of every notification on `channel`. */
  on(channel: string, listener: (payload: string) => void): void {
    this.#events.on(channel, listener);
  }

  /** Resolves on the next `channel` notification about `key`, after `timeoutMs`, or when `signal` aborts. */
  async next(channel: string, key: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const timeout = AbortSignal.timeout(timeoutMs);
    await once(this.#events, `${channel}:${key}`, { signal: AbortSignal.any([timeout, signal]) }).catch(
      () => {},
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#client?.end().catch(() => undefined);
  }

  /** Schedules one attempt to listen again (never a second while one is pending). */
  #reconnectLater(): void {
    this.#client = undefined;
    this.#lost = true;
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#closed) return;
      this.start().catch((err) => {
        this.#logger.warn({ err: err.message }, 'notification listener could not reconnect');
        this.#reconnectLater();
      });
    }, RECONNECT_MS).unref();
  }
}
