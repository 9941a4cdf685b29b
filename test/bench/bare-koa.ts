/**
 * The baseline of the façade benchmark: a bare Koa JSON-RPC handler that reads the body, parses it and
 * answers a fixed tools/list result, with none of the MCP machinery.
 */
import Koa from 'koa';
import getRawBody from 'raw-body';

const app = new Koa();
const tools = { tools: [{ name: 'get_skin_scan', inputSchema: { type: 'object' } }] };
app.use(async (ctx) => {
  const request = JSON.parse(await getRawBody(ctx.req, { limit: 65536, encoding: 'utf8' }));
  ctx.body = { jsonrpc: '2.0', id: request.id, result: tools };
});
const port = Number(process.env.PORT ?? 0);
const server = app.listen(port, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
