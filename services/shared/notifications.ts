/**
 * PostgreSQL LISTEN/NOTIFY, fanned out in-process. Triggers announce changes (`scan_changed` with a scan
 * id, `catalog_changed` after catalog writes) whichever replica made them; one listening connection per
 * process hands them to whoever waits. Waiters also look again on a timer, so a notification lost while
 * the connection was being re-established delays an update but never loses it.
 */
import { EventEmitter, once } from 'node:events';
import pg from 'pg';
import type { Logger } from './logger.ts';

const RECONNECT_MS = 1000;

export class Notifications {
  readonly #databaseUrl: string;
  readonly #channels: readonly string[];
  readonly #logger: Logger;
  readonly #events = new EventEmitter({ captureRejections: false });
  #client: pg.Client | undefined;
  #closed = false;

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
    client.on('end', () => this.#reconnectLater());
    await client.connect();
    for (const channel of this.#channels) await client.query(`listen ${channel}`);
    this.#client = client;
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
    await this.#client?.end().catch(() => undefined);
  }

  #reconnectLater(): void {
    this.#client = undefined;
    if (this.#closed) return;
    setTimeout(() => {
      if (this.#closed) return;
      this.start().catch((err) => {
        this.#logger.warn({ err: err.message }, 'notification listener could not reconnect');
        this.#reconnectLater();
      });
    }, RECONNECT_MS).unref();
  }
}
