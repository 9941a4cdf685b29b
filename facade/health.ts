/**
 * GET /health: whether the service can take work, for agents and for Kubernetes probes. `ok` is false when
 * core or its database does not answer (and the status is then 503); why is logged when it starts, with the
 * reason, and again when it ends — not on every probe. While new scans are refused, `admissions_paused_by`
 * says why: `operator`, `backlog` or both. While core's catalog cannot be matched against, `catalog` says so
 * (`loading`, `unavailable` while core retries a failed load, `empty` when it is loaded and holds no product,
 * `unknown` when core does not answer). `photo_intake` says
 * whether a person can hand a photo to a scan now: `direct_or_link` while the upload page behind every
 * `upload_url` takes photos (core and its database answer), `unavailable` while it cannot.
 * While core is starting (its migrations have not ended: they may wait for a migration Job's lock) the
 * answer is 200 with `ok` false and `core: "starting"`: every tool answers `unavailable` meanwhile, but it is
 * a step of every deploy, not an outage — a monitor or probe reading the status must not fail (or restart)
 * façades for it; the change is logged as info, once.
 * Once this façade is shutting down it answers 503 with `shutting_down: true` (and `photo_intake`
 * `unavailable`).
 *
 * GET /ready: whether this façade can answer, for Kubernetes' readinessProbe: 200 `{"ready": true}` until it
 * is shutting down, then 503 `{"ready": false, "shutting_down": true}`. It does not ask core: an outage of
 * core or its database is every replica's, and taking them all out of the Service left clients the
 * ingress's bare 503, where a façade in rotation answers the tool call `unavailable` with
 * `retry_after_seconds` and the person's page its own error page. /health reports that outage.
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import { CatalogState, type StatusService } from '../gen/skinmatch/v1/status_pb.ts';
import type { Logger } from '../services/shared/logger.ts';
import type { Readiness } from '../services/shared/shutdown.ts';

const CORE_TIMEOUT_MS = 2000;

const STARTING = 'core is starting';

const NOT_READY = {
  ok: false,
  admissions_enabled: false,
  catalog_tools_enabled: false,
  photo_intake: 'unavailable',
};

const CATALOG: Record<CatalogState, string> = {
  [CatalogState.UNSPECIFIED]: 'unknown',
  [CatalogState.LOADING]: 'loading',
  [CatalogState.LOADED]: 'loaded',
  [CatalogState.UNAVAILABLE]: 'unavailable',
  [CatalogState.EMPTY]: 'empty',
};

export function readyEndpoint(readiness?: Readiness) {
  return (ctx: Context): void => {
    ctx.set('Cache-Control', 'no-store');
    const draining = readiness?.draining === true;
    ctx.status = draining ? 503 : 200;
    ctx.body = draining ? { ready: false, shutting_down: true } : { ready: true };
  };
}

export function healthEndpoint(status: Client<typeof StatusService>, logger: Logger, readiness?: Readiness) {
  /** The last answer's fault, STARTING, or undefined when all was well: logged when it changes. */
  let lastState: string | undefined;
  return async (ctx: Context): Promise<void> => {
    ctx.set('Cache-Control', 'no-store');
    if (readiness?.draining) {
      // Shutting down: not ready, whatever core says (and without asking it).
      ctx.status = 503;
      ctx.body = { ...NOT_READY, shutting_down: true };
      return;
    }
    let fault: string | undefined;
    const core = await status.getStatus({}, { timeoutMs: CORE_TIMEOUT_MS }).catch((err: Error) => {
      fault = `core did not answer: ${err.message}`;
      return undefined;
    });
    if (core && !core.databaseOk) fault = 'core reports that its database does not answer';
    const starting = fault === undefined && core?.starting === true;
    const state = fault ?? (starting ? STARTING : undefined);
    if (state !== lastState) {
      if (fault) logger.error({ reason: fault }, 'health: answering 503');
      else if (starting) logger.info('health: core is starting (its migrations have not ended): ok false');
      else if (lastState === STARTING) logger.info('health: core has started');
      else logger.info('health: core and its database answer again');
      lastState = state;
    }
    const ok = fault === undefined && core !== undefined && !starting;
    ctx.status = fault === undefined ? 200 : 503;
    const pausedBy = [
      ...(core?.pausedByOperator ? ['operator'] : []),
      ...(core?.pausedByBacklog ? ['backlog'] : []),
    ];
    ctx.body = {
      ok,
      admissions_enabled: ok && core.admissionsEnabled,
      // Why new scans are refused, while they are: the operator's switch and/or the analysis backlog.
      ...(ok && pausedBy.length > 0 ? { admissions_paused_by: pausedBy } : {}),
      ...(starting ? { core: 'starting' } : {}),
      catalog_tools_enabled: ok && core.catalogToolsEnabled,
      // Only while the catalog cannot be matched against, like admissions_paused_by: all well, the spec's four keys.
      ...(core?.catalog === CatalogState.LOADED
        ? {}
        : { catalog: CATALOG[core?.catalog ?? CatalogState.UNSPECIFIED] ?? 'unknown' }),
      photo_intake: ok ? 'direct_or_link' : 'unavailable',
    };
  };
}
