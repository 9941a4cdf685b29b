import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('guest scan tools through the real MCP SDK client', () => {
  let stack: Stack;
  let client: Client;

  before(async () => {
    stack = await startStack('scan-tools');
    client = await connectSdkClient(stack.baseUrl);
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  it('lists the guest tools with schemas, titles and honest annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()].sort(), [
      'delete_skin_scan',
      'get_skin_scan',
      'recommend_products',
      'start_skin_scan',
    ]);
    for (const tool of tools) {
      assert.ok(tool.title && tool.description && tool.outputSchema, tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    }
    assert.equal(byName.get('get_skin_scan')?.annotations?.readOnlyHint, true);
    assert.equal(byName.get('delete_skin_scan')?.annotations?.destructiveHint, true);
    assert.equal(byName.get('delete_skin_scan')?.annotations?.idempotentHint, true);
    assert.match(byName.get('start_skin_scan')?.description ?? '', /never upload/i);
  });

  it('initialize carries instructions for the whole flow', () => {
    const instructions = client.getInstructions() ?? '';
    assert.match(instructions, /start_skin_scan/);
    assert.match(instructions, /never show it to the person/);
  });

  it('starts, reads and deletes a scan; the deleted scan is then not_found', async () => {
    const started = await client.callTool({ name: 'start_skin_scan', arguments: { source: 'mocha' } });
    assert.equal(started.isError, undefined);
    const scan = started.structuredContent as Record<string, any>;
    assert.match(scan.run_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(scan.access_token, /^[a-f0-9]{64}$/);
    assert.equal(scan.upload_url, `${stack.baseUrl}/scan/${scan.run_id}`);
    assert.equal(scan.status, 'awaiting_upload');
    assert.equal(scan.next_action, 'share_upload_url');
    assert.equal(JSON.parse((started.content as { text: string }[])[0]!.text).run_id, scan.run_id);

    const identity = { run_id: scan.run_id, access_token: scan.access_token };
    const got = await client.callTool({ name: 'get_skin_scan', arguments: identity });
    assert.deepEqual(
      {
        ...(got.structuredContent as object),
        created_at: undefined,
        expires_at: undefined,
      },
      {
        run_id: scan.run_id,
        status: 'awaiting_upload',
        next_action: 'share_upload_url',
        retry_after_seconds: 5,
        progress: 0,
        upload_url: scan.upload_url,
        created_at: undefined,
        expires_at: undefined,
      },
    );
    const sc = got.structuredContent as Record<string, string>;
    const lifetime = Date.parse(sc.expires_at!) - Date.parse(sc.created_at!);
    assert.equal(lifetime, 7 * 24 * 3600 * 1000);

    const deleted = await client.callTool({ name: 'delete_skin_scan', arguments: identity });
    assert.deepEqual(deleted.structuredContent, { run_id: scan.run_id, deleted: true });

    const gone = await client.callTool({ name: 'get_skin_scan', arguments: identity });
    assert.equal(gone.isError, true);
    assert.equal((gone.structuredContent as any).error.code, 'not_found');
  });

  it('a source with a NUL character is invalid_input naming source, not unavailable (a retry cannot help)', async () => {
    const started = await client.callTool({ name: 'start_skin_scan', arguments: { source: 'agent\u0000x' } });
    assert.equal(started.isError, true);
    const { error } = started.structuredContent as { error: Record<string, unknown> };
    assert.equal(error.code, 'invalid_input');
    assert.equal(error.field, 'source');
    assert.equal(error.retry_after_seconds, undefined);
  });
});
