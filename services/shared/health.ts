/**
 * grpc.health.v1 for connect-node. The overall status ("") and each named service share one probe: a
 * service is SERVING exactly when its dependencies answer.
 *
 * The probe is bounded: one that has not answered within `probeTimeoutMs` (a database that hangs instead of
 * refusing) counts as NOT_SERVING, and only one probe runs at a time — calls that arrive while it runs share
 * it, so a hung dependency never collects a probe per call. Watch streams do not probe each: one shared
 * poller (status-feed.ts) asks once per interval while any Watch is open and tells every watcher of a change.
 * A Watch ends when the process stops taking work (`stopping`): NOT_SERVING, then UNAVAILABLE, as WatchScan
 * ends, instead of holding the process to its shutdown bound. A Watch of an unknown service answers
 * SERVICE_UNKNOWN and stays open, as health.proto asks (this server's services never change, so no later
 * update follows).
 *
 * A process may also answer named checks of its own (`checks`: `readiness`, `liveness`), each with its own
 * probe, for Kubernetes' gRPC probes (their `service` field): the overall status reports the dependencies,
 * for operators and callers; a pod's readiness and liveness ask only what the pod itself can do.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import {
  type Health,
  type HealthCheckRequest,
  type HealthCheckResponse,
  HealthCheckResponseSchema,
  HealthListResponseSchema,
  HealthCheckResponse_ServingStatus as Status,
} from '../../gen/grpc/health/v1/health_pb.ts';
import { StatusFeed } from './status-feed.ts';
import { quote } from './text.ts';

export type Probe = () => Promise<boolean>;

export interface HealthOptions {
  /** Aborted when the process stops taking work: open Watch streams end (UNAVAILABLE). */
  readonly stopping?: AbortSignal;
  /** How often the shared poller probes while a Watch is open (1 s). */
  readonly intervalMs?: number;
  /** A probe that has not answered after this long counts as NOT_SERVING (1 s). */
  readonly probeTimeoutMs?: number;
  /** Named checks with probes of their own (`readiness`, `liveness`), answered like a service. */
  readonly checks?: Readonly<Record<string, Probe>>;
}

const WATCH_INTERVAL_MS = 1000;
const PROBE_TIMEOUT_MS = 1000;
const STOPPING_MESSAGE = 'This server is stopping: watch its health again.';

export class HealthService implements ServiceImpl<typeof Health> {
  readonly #services: readonly string[];
  readonly #stopping: AbortSignal | undefined;
  readonly #overall: SharedProbe;
  readonly #checks: ReadonlyMap<string, SharedProbe>;

  constructor(services: readonly string[], probe: Probe, options: HealthOptions = {}) {
    this.#services = services;
    this.#stopping = options.stopping;
    const shared = (one: Probe) =>
      new SharedProbe(
        one,
        options.probeTimeoutMs ?? PROBE_TIMEOUT_MS,
        options.intervalMs ?? WATCH_INTERVAL_MS,
      );
    this.#overall = shared(probe);
    this.#checks = new Map(Object.entries(options.checks ?? {}).map(([name, one]) => [name, shared(one)]));
  }

  async check(req: HealthCheckRequest): Promise<HealthCheckResponse> {
    const probe = this.#probeOf(req.service);
    // The name is quoted clipped: a caller's megabyte of name is not echoed back to it.
    if (!probe) throw new ConnectError(`unknown service ${quote(req.service)}`, Code.NotFound);
    return response(await probe.serving());
  }

  async list() {
    const status = response(await this.#overall.serving());
    const statuses: Record<string, HealthCheckResponse> = Object.fromEntries(
      ['', ...this.#services].map((name) => [name, status]),
    );
    for (const [name, probe] of this.#checks) statuses[name] = response(await probe.serving());
    return create(HealthListResponseSchema, { statuses });
  }

  async *watch(req: HealthCheckRequest, ctx: HandlerContext): AsyncGenerator<HealthCheckResponse> {
    const ended = this.#stopping ? AbortSignal.any([ctx.signal, this.#stopping]) : ctx.signal;
    const probe = this.#probeOf(req.service);
    let last: Status | undefined;
    if (probe) {
      for await (const serving of probe.feed.updates(ended)) {
        const current = response(serving);
        if (current.status !== last) {
          last = current.status;
          yield current;
        }
      }
    } else {
      last = Status.SERVICE_UNKNOWN;
      yield response(undefined);
      await aborted(ended);
    }
    if (ctx.signal.aborted || !this.#stopping?.aborted) return;
    if (last === Status.SERVING) yield response(false);
    throw new ConnectError(STOPPING_MESSAGE, Code.Unavailable);
  }

  #probeOf(service: string): SharedProbe | undefined {
    if (service === '' || this.#services.includes(service)) return this.#overall;
    return this.#checks.get(service);
  }
}

/** One probe shared by every caller: one run at a time, bounded, and one poller for every Watch. */
class SharedProbe {
  readonly #probe: Probe;
  readonly #timeoutMs: number;
  readonly feed: StatusFeed<boolean>;
  #running: Promise<boolean> | undefined;

  constructor(probe: Probe, timeoutMs: number, intervalMs: number) {
    this.#probe = probe;
    this.#timeoutMs = timeoutMs;
    this.feed = new StatusFeed(() => this.serving(), intervalMs);
  }

  /** The probe's answer, false if it fails or takes longer than the bound; one probe at a time. */
  serving(): Promise<boolean> {
    if (!this.#running) {
      const running = this.#probe().catch(() => false);
      this.#running = running;
      void running.finally(() => {
        if (this.#running === running) this.#running = undefined;
      });
    }
    return within(this.#running, this.#timeoutMs, false);
  }
}

function response(serving: boolean | undefined): HealthCheckResponse {
  const status =
    serving === undefined ? Status.SERVICE_UNKNOWN : serving ? Status.SERVING : Status.NOT_SERVING;
  return create(HealthCheckResponseSchema, { status });
}

/** `promise`'s value, or `fallback` if it has not settled within `ms`. */
export function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves once `signal` aborts; its one listener goes with the abort. */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
