/**
 * The baseline of the façade benchmark: a bare Koa JSON-RPC handler that reads the body, parses it and
 * answers a fixed result — the very tools/list the façade serves, so that both pay for the same response
 * size and the ratio measures the MCP layer alone.
 */
import { createClient, createRouterTransport } from '@connectrpc/connect';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { matchTools } from '../../facade/mcp/match-tools.ts';
import { toolListing } from '../../facade/mcp/mcp-server.ts';
import { scanTools } from '../../facade/mcp/scan-tools.ts';
import { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';

// Clients that are never called: the listing only needs the tool definitions.
const unused = createRouterTransport(() => {});
const tools = {
  tools: toolListing([
    ...scanTools(createClient(ScanService, unused)),
    ...matchTools(createClient(MatchService, unused)),
  ]),
};
const app = new Koa();
app.use(async (ctx) => {
  const request = JSON.parse(await getRawBody(ctx.req, { limit: 65536, encoding: 'utf8' }));
  ctx.body = { jsonrpc: '2.0', id: request.id, result: tools };
});
const port = Number(process.env.PORT ?? 0);
const server = app.listen(port, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
