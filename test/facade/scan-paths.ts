/**
 * Every path on which a scan's holders reach it, asked at one instant: the agent's MCP tools on /mcp (SDK
 * client) and with the scan's token on /mcp/account, ScanService over @grpc/grpc-js (GetScan, WatchScan),
 * and the person's pages (the upload page, its event stream, the save page) in the consenting browser.
 */
import * as grpc from '@grpc/grpc-js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { pageFetch } from '../intake/scan-page-support.ts';
import { accountRpc } from '../support/bearer.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { connectSdkClient } from '../support/mcp.ts';
import type { Stack } from '../support/stack.ts';

export interface HeldScan {
  readonly runId: string;
  readonly accessToken: string;
  readonly browserSecret: string;
}

export interface ScanPaths {
  /** What each path answers for the scan: 'ok' or an error code, or an HTTP status for the pages. */
  answers(scan: HeldScan, bearer: string): Promise<Record<string, string | number>>;
  /** A tool's answer on /mcp: 'ok' or its error code. */
  tool(name: string, args: Record<string, unknown>): Promise<string>;
  /** A tool's answer on /mcp/account: 'ok', its error code, or `HTTP <status>` when refused before it. */
  accountTool(bearer: string, name: string, args: object): Promise<string>;
  /** A WatchScan: 'ok' at its first message, or how it ended first; and how it ends (its status). */
  watch(scan: HeldScan): { readonly first: Promise<string>; readonly end: Promise<string>; cancel(): void };
  close(): Promise<void>;
}

export async function scanPaths(stack: Stack): Promise<ScanPaths> {
  const agent: Client = await connectSdkClient(stack.baseUrl);
  const scans = new (loadProto('skinmatch/v1/scan.proto').skinmatch.v1.ScanService)(
    new URL(stack.coreUrl).host,
    grpc.credentials.createInsecure(),
  );
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await agent.callTool({ name, arguments: args });
    return result.isError ? (result.structuredContent as any).error.code : 'ok';
  };
  const accountTool = async (bearer: string, name: string, args: object) => {
    const { status, body } = await accountRpc(stack.baseUrl, bearer, 'tools/call', { name, arguments: args });
    if (!body?.result) return `HTTP ${status}`;
    return body.result.isError ? body.result.structuredContent.error.code : 'ok';
  };
  const grpcPair = (scan: HeldScan) => ({ runId: scan.runId, accessToken: scan.accessToken });
  const watch = (scan: HeldScan) => {
    const call = scans.watchScan(grpcPair(scan));
    const end = new Promise<string>((done) => {
      call.on('error', (err: grpc.ServiceError) => done(grpc.status[err.code]!));
      call.on('end', () => done('ended'));
    });
    const first = Promise.race([new Promise<string>((done) => call.once('data', () => done('ok'))), end]);
    return { first, end, cancel: () => call.cancel() };
  };
  /** The upload page's event stream: its status once headers arrive (200 streams on: it is cut here). */
  const eventsStatus = async (runId: string, secret: string) => {
    const cut = new AbortController();
    const res = await pageFetch(stack.baseUrl, `/scan/${runId}/events`, { secret, signal: cut.signal });
    cut.abort();
    return res.status;
  };
  const answers = async (scan: HeldScan, bearer: string) => {
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    const secret = scan.browserSecret;
    const watching = watch(scan);
    const grpcWatch = await watching.first;
    watching.cancel();
    return {
      get: await tool('get_skin_scan', pair),
      recommend: await tool('recommend_products', pair),
      accountGet: await accountTool(bearer, 'get_skin_scan', pair),
      grpcGet: await unary(scans, 'getScan', grpcPair(scan)).then(
        () => 'ok',
        (err: grpc.ServiceError) => grpc.status[err.code]!,
      ),
      grpcWatch,
      page: (await pageFetch(stack.baseUrl, `/scan/${scan.runId}`, { secret })).status,
      events: await eventsStatus(scan.runId, secret),
      savePage: (await pageFetch(stack.baseUrl, `/save/${scan.runId}`, { secret })).status,
    };
  };
  return {
    answers,
    tool,
    accountTool,
    watch,
    close: async () => {
      scans.close();
      await agent.close();
    },
  };
}

/** What every path answers for a scan its holders may use. */
export const WORKING = {
  get: 'ok',
  recommend: 'ok',
  accountGet: 'ok',
  grpcGet: 'ok',
  grpcWatch: 'ok',
  page: 200,
  events: 200,
  savePage: 200,
};

/** What every path answers for a scan that does not exist: one not_found, one 404. */
export const GONE = {
  get: 'not_found',
  recommend: 'not_found',
  accountGet: 'not_found',
  grpcGet: 'NOT_FOUND',
  grpcWatch: 'NOT_FOUND',
  page: 404,
  events: 404,
  savePage: 404,
};
