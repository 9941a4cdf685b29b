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
  if (plainCall(method, params)) return undefined;
  const parsed = (PARAMS_SCHEMAS.get(method) ?? RequestSchema).safeParse({ method, params });
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  const why = issue ? issue.message.replace(/^Invalid input: /, '') : 'invalid';
  return { status: 200, code: -32602, message: `Invalid params: ${where}: ${why}.` };
}

/**
 * What nearly every request is, and what its schema accepts without a look: tools/list with no params,
 * or tools/call with only a string `name` and (if any) an object of `arguments`. The SDK parses each
 * request with its schema twice more; a third parse here cost a zod pass and a copy of the request.
 */
function plainCall(method: string, params: unknown): boolean {
  if (method === 'tools/list') return params === undefined;
  if (method !== 'tools/call' || !toolCallParamsOk(params)) return false;
  for (const key in params as object) if (key !== 'name' && key !== 'arguments') return false;
  return true;
}

/**
 * A message whose `params`, or a member of them, is null, read as one without it. JSON-RPC has a present
 * `params` be an object or an array, and MCP's schema has no null members, but clients write an absent
 * optional member as null (a Rust client serialising `None`, a typed record written with its nulls:
 * `notifications/initialized` with `"params": null`, `tools/list` with `"cursor": null`, `initialize` with
 * `"sampling": null` among its capabilities), and the Python SDK's servers take them: refused, such a client
 * could not connect (a 400 to its notifications/initialized ends its connection) or list the tools. Inside a
 * tool's `arguments` nothing is dropped (a null argument is the tool's to refuse, naming it); objects deeper
 * than MCP's own (four levels) are left as they are. Other values that are not objects stay -32602.
 */
export function withoutNulls(message: unknown): unknown {
  if (!isObject(message)) return message;
  // Nearly every message holds no null: it is then taken as it is, not copied member by member.
  const { params } = message;
  if (params !== null && !(isObject(params) && holdsNull(params, NULL_DEPTH, true))) return message;
  const { params: _, ...rest } = message;
  return params === null ? rest : { ...rest, params: membersWithoutNulls(params, NULL_DEPTH, true) };
}

/** Whether membersWithoutNulls would drop anything from `value`. */
function holdsNull(value: Record<string, unknown>, depth: number, top: boolean): boolean {
  for (const key of Object.keys(value)) {
    const member = value[key];
    if (member === null) return true;
    const looked = !((top && key === 'arguments') || depth <= 1 || !isObject(member));
    if (looked && holdsNull(member as Record<string, unknown>, depth - 1, false)) return true;
  }
  return false;
}

/** How deep below `params` null members are dropped: MCP's deepest, `capabilities.elicitation.form`. */
const NULL_DEPTH = 4;

function membersWithoutNulls(
  value: Record<string, unknown>,
  depth: number,
  top: boolean,
): Record<string, unknown> {
  // fromEntries defines each key as its own, `__proto__` included (an assignment would set the prototype).
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, member]) => member !== null)
      .map(([key, member]) => [
        key,
        (top && key === 'arguments') || depth <= 1 || !isObject(member)
          ? member
          : membersWithoutNulls(member, depth - 1, false),
      ]),
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
