/**
 * The shape of a JSON-RPC message on the MCP endpoints, checked before the SDK's server sees it: what it
 * would drop unanswered, or answer as an internal error with a validation dump, is answered with the
 * request's id and a short message instead.
 */
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  RequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** tools/call needs a string name and, if any, an object of arguments; the SDK's own answer is a dump. */
export function toolCallParamsOk(params: unknown): boolean {
  if (typeof params !== 'object' || params === null) return false;
  const { name, arguments: args } = params as Record<string, unknown>;
  const argsOk = args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args));
  return typeof name === 'string' && argsOk;
}

/**
 * The JSON-RPC 2.0 envelope, checked by shape only: a request (a string method and an id) is answered
 * with its own id from here on, and `requestProblem` checks the rest before the SDK sees it.
 */
export function envelope(message: unknown): 'request' | 'notification' | 'response' | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const params = m.params;
  const paramsOk =
    params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params));
  const idOk = typeof m.id === 'string' || Number.isSafeInteger(m.id);
  if (typeof m.method === 'string') {
    if (idOk) return 'request';
    return 'id' in m || !paramsOk ? undefined : 'notification';
  }
  return idOk && ('result' in m || 'error' in m) ? 'response' : undefined;
}

/** The SDK's schema of each method the server serves; any other method only needs the common params. */
interface ParamsSchema {
  safeParse(
    value: unknown,
  ):
    | { success: true }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}
/** A Map, not an object: a method named `constructor` or `__proto__` found Object's members (HTTP 500). */
const PARAMS_SCHEMAS = new Map<string, ParamsSchema>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * What the SDK's server would refuse in a request, answered here with the request's id. The server drops
 * a message that fails its envelope schema (an unknown member, `params._meta` of the wrong shape) without
 * an answer, so its HTTP request would wait out the deadline; and it answers params that fail a method's
 * schema as an internal error (-32603) with the whole validation dump.
 */
export function requestProblem(
  message: Record<string, unknown>,
): { status: number; code: number; message: string } | undefined {
  const extra = Object.keys(message).find((key) => !REQUEST_MEMBERS.has(key));
  if (extra !== undefined) {
    return { status: 400, code: -32600, message: `Invalid Request: unknown member "${extra}".` };
  }
  const { method, params } = message as { method: string; params?: unknown };
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return { status: 200, code: -32602, message: 'Invalid params: params must be an object.' };
  }
  const parsed = (PARAMS_SCHEMAS.get(method) ?? RequestSchema).safeParse({ method, params });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  const why = issue ? issue.message.replace(/^Invalid input: /, '') : 'invalid';
  return { status: 200, code: -32602, message: `Invalid params: ${where}: ${why}.` };
}

/**
 * A message whose `params` is null, read as one without params. JSON-RPC has a present `params` be an
 * object or an array, but clients write an absent member as null (a Rust client serialising `None`, a typed
 * record written with its nulls: `notifications/initialized` and `tools/list` with `"params": null`), and
 * the Python SDK's servers take it: refused, such a client's notifications/initialized was a 400, which
 * ends its connection. Other values that are not an object stay -32602.
 */
export function withoutNullParams(message: unknown): unknown {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return message;
  const { params, ...rest } = message as Record<string, unknown>;
  return params === null ? rest : message;
}
