/**
 * GET /health: whether the service can take work, for agents and for Kubernetes probes. `ok` is false when
 * core or its database does not answer (and the status is then 503). While new scans are refused,
 * `admissions_paused_by` says why: `operator`, `backlog` or both.
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import type { StatusService } from '../gen/skinmatch/v1/status_pb.ts';

const CORE_TIMEOUT_MS = 2000;

export function healthEndpoint(status: Client<typeof StatusService>) {
  return async (ctx: Context): Promise<void> => {
    const core = await status.getStatus({}, { timeoutMs: CORE_TIMEOUT_MS }).catch(() => undefined);
    const ok = core?.databaseOk === true;
    ctx.status = ok ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    const pausedBy = [
      ...(core?.pausedByOperator ? ['operator'] : []),
      ...(core?.pausedByBacklog ? ['backlog'] : []),
    ];
    ctx.body = {
      ok,
      admissions_enabled: ok && core.admissionsEnabled,
      // Why new scans are refused, while they are: the operator's switch and/or the analysis backlog.
      ...(ok && pausedBy.length > 0 ? { admissions_paused_by: pausedBy } : {}),
      catalog_tools_enabled: ok && core.catalogToolsEnabled,
      photo_intake: 'direct_or_link',
    };
  };
}
