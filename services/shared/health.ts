/**
 * grpc.health.v1 for connect-node. The overall status ("") and each named service share one probe: a
 * service is SERVING exactly when its dependencies answer.
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
import { quote } from './text.ts';

export type Probe = () => Promise<boolean>;

const WATCH_INTERVAL_MS = 1000;

export class HealthService implements ServiceImpl<typeof Health> {
  readonly #services: readonly string[];
  readonly #probe: Probe;

  constructor(services: readonly string[], probe: Probe) {
    this.#services = services;
    this.#probe = probe;
  }

  async check(req: HealthCheckRequest): Promise<HealthCheckResponse> {
    // The name is quoted clipped: a caller's megabyte of name is not echoed back to it.
    if (!this.#known(req.service))
      throw new ConnectError(`unknown service ${quote(req.service)}`, Code.NotFound);
    return this.#status();
  }

  async list() {
    const status = await this.#status();
    const statuses = Object.fromEntries(['', ...this.#services].map((name) => [name, status]));
    return create(HealthListResponseSchema, { statuses });
  }

  async *watch(req: HealthCheckRequest, ctx: HandlerContext): AsyncGenerator<HealthCheckResponse> {
    if (!this.#known(req.service)) {
      yield create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN });
      return;
    }
    let last: Status | undefined;
    while (!ctx.signal.aborted) {
      const current = await this.#status();
      if (current.status !== last) {
        last = current.status;
        yield current;
      }
      await sleep(WATCH_INTERVAL_MS, ctx.signal);
    }
  }

  #known(service: string): boolean {
    return service === '' || this.#services.includes(service);
  }

  async #status(): Promise<HealthCheckResponse> {
    const up = await this.#probe().catch(() => false);
    return create(HealthCheckResponseSchema, { status: up ? Status.SERVING : Status.NOT_SERVING });
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
