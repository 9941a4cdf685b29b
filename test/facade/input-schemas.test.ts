/**
 * The tools' input schemas as the strictest common clients take them: some hand them to Gemini's function
 * declarations, which refuse the whole request over a `format` other than `enum` or `date-time` (every tool
 * of the server is lost with it) and over type arrays; strict function calling needs every object closed.
 * Each tool on /mcp and /mcp/account (catalog tools included) is walked, every nested schema checked.
 */
import assert from 'node:assert/strict';
import { callTool } from '../support/mcp.ts';
import { twoEndpoints } from '../support/two-endpoints.ts';

/** Every schema nested in `schema` (itself included), with its path. */
function* schemas(schema: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (typeof schema !== 'object' || schema === null) return;
  const node = schema as Record<string, unknown>;
  yield [path, node];
  for (const [name, child] of Object.entries((node.properties as object | undefined) ?? {})) {
    yield* schemas(child, `${path}.${name}`);
  }
  if (node.items) yield* schemas(node.items, `${path}[]`);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const [i, child] of ((node[key] as unknown[] | undefined) ?? []).entries()) {
      yield* schemas(child, `${path}.${key}[${i}]`);
    }
  }
}

describe('the tools’ input schemas, as strict clients take them', () => {
  const ends = twoEndpoints('input-schemas');

  for (const endpoint of ['guest', 'account'] as const) {
    it(`${endpoint}: no format but enum or date-time, no type arrays, every object closed`, async () => {
      const { tools } = await ends[endpoint].listTools();
      assert.ok(tools.some((tool) => tool.name === 'recommend_products'));
      if (endpoint === 'account') assert.ok(tools.some((tool) => tool.name === 'search_products'));
      for (const tool of tools) {
        for (const [path, node] of schemas(tool.inputSchema, tool.name)) {
          const format = node.format;
          assert.ok(
            format === undefined || format === 'enum' || format === 'date-time',
            `${path}: ${format}`,
          );
          assert.ok(!Array.isArray(node.type), `${path}: type ${JSON.stringify(node.type)}`);
          if (node.type === 'object') assert.equal(node.additionalProperties, false, path);
        }
      }
    });
  }

  it('a run_id that is not a UUID is invalid_input naming it; one in upper case is read', async () => {
    const bad = await callTool(ends.stack.baseUrl, 'get_skin_scan', {
      run_id: 'urn:uuid:6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      access_token: 'a'.repeat(64),
    });
    assert.equal(bad.structuredContent.error.code, 'invalid_input');
    assert.equal(bad.structuredContent.error.field, 'run_id');
    assert.equal(bad.structuredContent.error.message, 'Argument "run_id" must be a UUID: a scan’s run_id.');
    const started = await callTool(ends.stack.baseUrl, 'start_skin_scan', { source: 'input-schemas' });
    const read = await callTool(ends.stack.baseUrl, 'get_skin_scan', {
      run_id: started.structuredContent.run_id.toUpperCase(),
      access_token: started.structuredContent.access_token,
    });
    assert.equal(read.isError, undefined, JSON.stringify(read.structuredContent));
    assert.equal(read.structuredContent.run_id, started.structuredContent.run_id);
  });
});
