/**
 * Graceful shutdown, the same in every process. On SIGTERM (or SIGINT) readiness goes false at once — the
 * façade's /health answers 503, core's and inference's grpc.health.v1 NOT_SERVING — while the process keeps
 * serving for SHUTDOWN_DRAIN_DELAY_MS, the time a load balancer or Kubernetes' endpoints take to stop
 * sending it work. Then it stops taking work and finishes what is in flight: requests are answered,
 * analysis jobs finish or are handed back to the queue for another replica. The whole shutdown is bounded
 * by SHUTDOWN_TIMEOUT_MS: past it the process exits with status 1 whatever is left (the chart's
 * terminationGracePeriodSeconds is longer, so Kubernetes never needs to SIGKILL it).
 */
import type { Logger } from './logger.ts';

/** Whether the process takes new work; read by the health endpoints. */
export class Readiness {
  #draining = false;
  #streamsEnded = false;
  readonly #streams = new Set<() => void>();

  get draining(): boolean {
    return this.#draining;
  }

  drain(): void {
    this.#draining = true;
  }

  /**
   * A stream that has no end of its own (the upload page's progress): `end` is called when the process
   * stops taking work, so that the client reconnects — to another replica — rather than hold the shutdown
   * to its bound. Answers the function that forgets the stream once it has ended anyway.
   */
  holdStream(end: () => void): () => void {
    if (this.#streamsEnded) {
      end();
      return () => {};
    }
    this.#streams.add(end);
    return () => this.#streams.delete(end);
  }

  /** Ends every held stream, and any held from now on. */
  endStreams(): void {
    this.#streamsEnded = true;
    for (const end of [...this.#streams]) end();
    this.#streams.clear();
  }
}

export interface ShutdownOptions {
  readonly logger: Logger;
  readonly readiness: Readiness;
  readonly drainDelayMs: number;
  readonly timeoutMs: number;
  /** Stops taking work and waits for the work in flight; resolves when nothing is left. */
  readonly drain: () => Promise<void>;
  /**
   * Whether the process has started taking work (default: it has). One still starting (core waiting for
   * its migrations) is in no load balancer's rotation: it drains at once, without the drain delay.
   */
  readonly started?: () => boolean;
}

/** What is left for handing work back and closing connections once the grace for work in flight ends. */
const CLOSING_MS = 2000;

/**
 * How long work in flight may go on after the drain delay before it is handed back or cut: what is left of
 * the bound after the delay, less the time closing takes (at least 1 s).
 */
export function shutdownGraceMs(config: { shutdownDrainDelayMs: number; shutdownTimeoutMs: number }): number {
  return Math.max(1000, config.shutdownTimeoutMs - config.shutdownDrainDelayMs - CLOSING_MS);
}

/** Installs the SIGTERM/SIGINT handlers: readiness false, the drain delay, the drain, exit. */
export function shutDownGracefully(options: ShutdownOptions): void {
  const { logger, readiness, drainDelayMs, timeoutMs } = options;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    readiness.drain();
    const starting = options.started?.() === false;
    const delayMs = starting ? 0 : drainDelayMs;
    logger.info(
      { signal, drain_delay_ms: delayMs, timeout_ms: timeoutMs, ...(starting ? { starting } : {}) },
      'stopping: not ready any more, draining',
    );
    const bound = setTimeout(() => {
      logger.error({ ms: elapsed() }, 'shutdown bound reached: exiting with work still in flight');
      process.exit(1);
    }, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      await options.drain();
    } catch (err) {
      logger.error({ err: (err as Error).message, ms: elapsed() }, 'shutdown failed');
      process.exit(1);
    }
    clearTimeout(bound);
    logger.info({ ms: elapsed() }, 'stopped');
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal));
}
