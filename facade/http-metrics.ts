/**
 * Every HTTP request the façade answers, counted once (skinmatch_http_requests_total) and timed
 * (skinmatch_http_request_duration_seconds): the pages, the authorization server (oidc-provider answers
 * on the response itself), /mcp's HTTP-level answers (401, 413, 429…) and /health, so an operator can
 * alert on their 5xx rate. Counted when the response ends, so the status is the one sent, whoever wrote it
 * (a route, Koa's error handler, the slow-client bounds). Labels are bounded: the route template the logs
 * use (route-template.ts; never the path, which holds ids and whatever a client put there), a known method
 * or `OTHER`, the status code.
 */
import type { ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import { httpRequestDuration, httpRequests, secondsSince } from '../services/shared/metrics.ts';
import { routeTemplate } from './route-template.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Responses Node answered itself (server.ts clientError): counted there, with the status it wrote. */
const answeredByNode = new WeakSet<ServerResponse>();

function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : 'OTHER';
}

/** Counts each request once its response ends: the first of `finish` (all written) and `close`. */
export const countRequests: Middleware = (ctx, next) => {
  const started = performance.now();
  const method = methodLabel(ctx.method);
  // Before any route reads or rewrites the path (oidc-provider mounts itself under its prefix).
  const route = routeTemplate(ctx.path);
  const { res } = ctx;
  let counted = false;
  const done = () => {
    if (counted || answeredByNode.has(res)) return;
    counted = true;
    const status = res.headersSent ? String(res.statusCode) : 'none';
    httpRequests.inc({ method, route, status });
    httpRequestDuration.observe({ method, route }, secondsSince(started));
  };
  res.once('finish', done);
  res.once('close', done);
  return next();
};

/**
 * An answer Node wrote on a connection's error (server.ts): headers that missed their bound (408), too
 * large (431, 413). For a request being served, counted under its own method and route (and not again
 * when its response closes); before any request was read, as method `OTHER`, route `unparsed`.
 */
export function countNodeAnswer(status: number, inFlight: ServerResponse | null | undefined): void {
  // Null once Node has let go of a finished answer, on a connection kept alive for the next request.
  if (inFlight) answeredByNode.add(inFlight);
  const req = inFlight?.req;
  httpRequests.inc({
    method: methodLabel(req?.method),
    route: req === undefined ? 'unparsed' : routeTemplate((req.url ?? '/').split('?')[0] ?? '/'),
    status: String(status),
  });
}
