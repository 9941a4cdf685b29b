/**
 * A tool error carries only the codes every tool's outputSchema lists. A core error with a reason of the
 * person's pages (upload_closed, consent_required, …) reaching a tool is a fault: answered `unavailable`
 * and logged, never passed on — the SDK client checks structuredContent against the listed outputSchema and
 * would throw instead of giving the agent any answer. The real façade server, a real SDK client in memory.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { pino } from 'pino';
import { buildServer } from '../../facade/mcp/mcp-server.ts';
import type { ToolDefinition } from '../../facade/mcp/tool-definition.ts';
import { type ErrorReason, serviceError } from '../../services/shared/errors.ts';

function failingWith(reason: ErrorReason): ToolDefinition {
  return {
    name: 'read_thing',
    title: 'Read a thing',
    description: 'Fails as core does.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    annotations: { readOnlyHint: true },
    call: async () => {
      throw serviceError(reason, `core said ${reason}`, reason === 'invalid_input' ? { field: 'x' } : {});
    },
  };
}

async function callWith(reason: ErrorReason, lines: Record<string, unknown>[]) {
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const server = buildServer([failingWith(reason)], logger);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'tool-error-codes', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    await client.listTools(); // so that the client checks the answer against the listed outputSchema
    const result = await client.callTool({ name: 'read_thing', arguments: {} });
    return { isError: result.isError, error: (result.structuredContent as { error: any }).error };
  } finally {
    await client.close();
  }
}

describe('tool errors carry only the codes the outputSchema lists', () => {
  it('a spec code from core is passed on as it is', async () => {
    const lines: Record<string, unknown>[] = [];
    assert.deepEqual(await callWith('invalid_input', lines), {
      isError: true,
      error: { code: 'invalid_input', message: 'core said invalid_input', field: 'x' },
    });
    assert.deepEqual(lines, []);
  });

  for (const reason of ['upload_closed', 'consent_required', 'saved_to_another_account'] as const) {
    it(`a page's reason (${reason}) is unavailable and logged, and the SDK client takes the answer`, async () => {
      const lines: Record<string, unknown>[] = [];
      const { isError, error } = await callWith(reason, lines);
      assert.equal(isError, true);
      assert.equal(error.code, 'unavailable');
      assert.equal(error.retry_after_seconds, 5);
      assert.equal(lines.length, 1);
      assert.equal(lines[0]!.msg, 'tool call failed');
      const { name, message } = lines[0]!.err as Record<string, unknown>;
      assert.deepEqual(
        { name, message },
        { name: 'ConnectError', message: `[failed_precondition] core said ${reason}` },
      );
    });
  }
});
