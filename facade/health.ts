/**
 * GET /health: whether the service can take work, for agents and for Kubernetes probes. `ok` is false when
 * core or its database does not answer (and the status is then 503).
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
    ctx.body = {
      ok,
      admissions_enabled: ok && core.admissionsEnabled,
      catalog_tools_enabled: ok && core.catalogToolsEnabled,
      photo_intake: 'direct_or_link',
    };
  };
}
