/**
 * A client that puts a secret where a name goes — a scan token as an argument's key or as the tool's name
 * (a mixed-up call) — is told what is wrong without the value being repeated: clients log and show error
 * messages, and the spec's token is never to be shown to the person. Other names are still quoted, so
 * that an agent can correct the call.
 */
import assert from 'node:assert/strict';
import { callTool, rpc } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('secret-shaped names in refusals', () => {
  let stack: Stack;
  let scan: { run_id: string; access_token: string };

  before(async () => {
    stack = await startStack('secret-shaped-names');
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'names' });
    scan = { run_id: started.structuredContent.run_id, access_token: started.structuredContent.access_token };
  });
  after(() => stack?.close());

  it('a token as an argument’s key: invalid_input, the key neither in the message nor as the field', async () => {
    for (const key of [scan.access_token, scan.access_token.toUpperCase()]) {
      const result = await callTool(stack.baseUrl, 'get_skin_scan', { ...scan, [key]: true });
      assert.equal(result.isError, true);
      assert.deepEqual(result.structuredContent, {
        error: {
          code: 'invalid_input',
          message:
            'Unknown argument (its name is shaped like a secret: not repeated here). ' +
            'The arguments are: run_id, access_token.',
        },
      });
      assert.equal(result.content[0]?.text, JSON.stringify(result.structuredContent));
    }
    const plain = await callTool(stack.baseUrl, 'get_skin_scan', { ...scan, limit: 1 });
    assert.equal(plain.structuredContent.error.field, 'limit');
  });

  it('a token as the tool’s name: -32602 without it', async () => {
    const { status, body } = await rpc(stack.baseUrl, 'tools/call', {
      name: scan.access_token,
      arguments: {},
    });
    assert.equal(status, 200);
    assert.equal(body.error.code, -32602);
    assert.equal(JSON.stringify(body).includes(scan.access_token), false, body.error.message);
    assert.match(
      body.error.message,
      /^Unknown tool: \(its name is shaped like a secret: not repeated here\)\./,
    );
  });
});
