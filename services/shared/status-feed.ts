/**
 * One poller shared by every watcher of a status (grpc.health.v1 Watch): it reads the status once per
 * interval while anyone watches and stops when the last watcher leaves, so a thousand open watches cost one
 * probe a second, not a thousand. Each watcher gets the latest status read, never a backlog.
 */

type Listener<T> = (value: T) => void;

export class StatusFeed<T> {
  readonly #read: () => Promise<T>;
  readonly #intervalMs: number;
  readonly #listeners = new Set<Listener<T>>();
  #latest: { value: T } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reading = false;

  constructor(read: () => Promise<T>, intervalMs: number) {
    this.#read = read;
    this.#intervalMs = intervalMs;
  }

  /** The status now and after each read, until `signal` aborts (then the iteration ends). */
  async *updates(signal: AbortSignal): AsyncGenerator<T> {
    let pending: { value: T } | undefined = this.#latest;
    let wake: (() => void) | undefined;
    const listener = (value: T) => {
      pending = { value };
      wake?.();
    };
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort, { once: true });
    this.#subscribe(listener);
    try {
      while (!signal.aborted) {
        if (!pending) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        const { value } = pending;
        pending = undefined;
        yield value;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.#unsubscribe(listener);
    }
  }

  #subscribe(listener: Listener<T>): void {
    this.#listeners.add(listener);
    if (this.#listeners.size === 1 && !this.#reading && !this.#timer) void this.#tick();
  }

  #unsubscribe(listener: Listener<T>): void {
    this.#listeners.delete(listener);
    if (this.#listeners.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      // A status read while nobody watched may be stale by the time someone watches again.
      this.#latest = undefined;
    }
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    this.#reading = true;
    // A failed read tells nobody anything; the next one is tried after the interval.
    const read = await this.#read().then(
      (value) => ({ value }),
      () => undefined,
    );
    this.#reading = false;
    if (this.#listeners.size === 0) return;
    if (read) {
      this.#latest = read;
      for (const listener of this.#listeners) listener(read.value);
    }
    this.#timer = setTimeout(() => void this.#tick(), this.#intervalMs);
    this.#timer.unref();
  }
}
