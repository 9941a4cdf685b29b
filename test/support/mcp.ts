/** MCP clients for tests: the real SDK client, and plain JSON-RPC over fetch without any handshake. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connectSdkClient(
  baseUrl: string,
  path = '/mcp',
  headers?: Record<string, string>,
): Promise<Client> {
  const client = new Client({ name: 'skinmatch-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, baseUrl), { requestInit: { headers } }),
  );
  return client;
}

export const JSON_RPC_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** One JSON-RPC request by plain fetch; returns the HTTP status and the parsed body (if any). */
export async function rpc(baseUrl: string, method: string, params?: unknown, path = '/mcp') {
  const res = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: JSON_RPC_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Any message (or batch) posted to /mcp by plain fetch, with extra headers: the status, headers, text, and
 * the body parsed when it is JSON (an SSE answer is left as text).
 */
export async function postMessage(baseUrl: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(new URL('/mcp', baseUrl), {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') === true;
  return { status: res.status, headers: res.headers, text, body: json ? JSON.parse(text) : undefined };
}

/** tools/call by plain fetch; returns the tool result. */
export async function callTool(baseUrl: string, name: string, args: unknown, path = '/mcp') {
  const { status, body } = await rpc(baseUrl, 'tools/call', { name, arguments: args }, path);
  if (status !== 200 || !body.result)
    throw new Error(`tools/call ${name}: HTTP ${status} ${JSON.stringify(body)}`);
  return body.result as {
    isError?: boolean;
    structuredContent: Record<string, any>;
    content: { text: string }[];
  };
}

/** The error code of a failed tool result (and a check that text and structuredContent agree). */
export function errorCode(result: Awaited<ReturnType<typeof callTool>>): string | undefined {
  if (!result.isError) return undefined;
  if (result.content[0]?.text !== JSON.stringify(result.structuredContent)) throw new Error('text differs');
  return result.structuredContent.error?.code;
}

/** Polls get_skin_scan until `check` holds; fails with the scan's last state after `timeoutMs`. */
export async function untilScan(
  baseUrl: string,
  scan: object,
  check: (state: any) => boolean,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = (await callTool(baseUrl, 'get_skin_scan', scan)).structuredContent;
    if (check(state)) return state;
    if (Date.now() > deadline) throw new Error(`scan stuck at ${JSON.stringify(state)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
