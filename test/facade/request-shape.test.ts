import assert from 'node:assert/strict';
import { withoutNulls } from '../../facade/mcp/request-shape.ts';

describe('withoutNulls', () => {
  it('takes a message holding no null as it is, not a copy', () => {
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_skin_scan', arguments: { run_id: 'x', note: null }, _meta: { a: { b: 1 } } },
    };
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    assert.equal(withoutNulls(call), call, 'a null inside arguments is the tool’s to refuse');
    assert.equal(withoutNulls(list), list);
  });

  it('drops params that are null, and null members of params down to four levels', () => {
    const deep = { a: { b: { c: null, d: 1 } } };
    assert.deepEqual(withoutNulls({ id: 1, method: 'ping', params: null }), { id: 1, method: 'ping' });
    assert.deepEqual(
      withoutNulls({ id: 1, method: 'initialize', params: { capabilities: deep, cursor: null } }),
      { id: 1, method: 'initialize', params: { capabilities: { a: { b: { d: 1 } } } } },
    );
    const deeper = { params: { a: { b: { c: { d: { e: null } } } } } };
    assert.deepEqual(withoutNulls(deeper), deeper, 'below four levels nothing is dropped (MCP’s deepest)');
  });
});
