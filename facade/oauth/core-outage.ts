/**
 * Core keeps every record of the authorization server (state-adapter.ts). When it cannot be reached, or
 * does not answer in time, the provider's answer is HTTP 503 with Retry-After (endpoints.ts) and the OAuth
 * error `temporarily_unavailable`, in the shape each endpoint already answers errors in: a JSON body at
 * /token and /register (RFC 6749 §5.2's fields; RFC 6749 names the code for authorization responses only,
 * and oidc-provider sends any error it is given), a redirect to the client at /authorize once its redirect
 * URI has been checked (RFC 6749 §4.1.2.1), or a page when it cannot be checked — with core down, the
 * client cannot be looked up, so nobody is redirected. Before, each was an HTTP 500 `server_error`.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { errors, Provider } from 'oidc-provider';
import { codeName } from '../../services/shared/telemetry.ts';

export const CORE_RETRY_AFTER_S = 5;

export class CoreOutage extends errors.OIDCProviderError {
  constructor(cause: unknown) {
    super(503, 'temporarily_unavailable', { cause });
    // Shown to the client: oidc-provider hides every 5xx error's code as server_error unless exposed.
    this.expose = true;
    this.error_description = `The authorization server cannot reach its storage; try again in ${CORE_RETRY_AFTER_S} s.`;
  }
}

/** The client to core, with its outages (unreachable, or no answer in time) thrown as CoreOutage. */
export function withOutages<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, name) {
      const member: unknown = Reflect.get(target, name);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) =>
        (member.apply(target, args) as Promise<unknown>).catch((err: unknown) => {
          const code = ConnectError.from(err).code;
          if (code !== Code.Unavailable && code !== Code.DeadlineExceeded) throw err;
          noteOutage(code);
          throw new CoreOutage(err);
        });
    },
  });
}

/**
 * Core's code for the failed call (`Unavailable`, `DeadlineExceeded`), kept on the request for the one
 * warning endpoints.ts writes for the 503: oidc-provider answers the error itself and hands it on to no one
 * (its request, the Koa context, is what Provider.ctx holds while it serves one). Only the code: the error's
 * message may name what the call carried.
 */
function noteOutage(code: Code): void {
  const ctx = Provider.ctx;
  if (ctx) ctx.state.coreCode = codeName(code);
}

/** The code noted by a core call that failed during this request, if any (see noteOutage). */
export function coreOutageCode(state: Record<string, unknown>): string | undefined {
  return typeof state.coreCode === 'string' ? state.coreCode : undefined;
}
