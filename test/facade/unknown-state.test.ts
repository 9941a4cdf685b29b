import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { create } from '@bufbuild/protobuf';
import { scanJson } from '../../facade/mcp/scan-json.ts';
import { NextAction, ScanSchema, ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** Waits for a line the log file's stream may not have flushed yet. */
async function logged(stack: Stack, pattern: RegExp): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 50) {
    if (pattern.test(readFileSync(stack.logFile, 'utf8'))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(readFileSync(stack.logFile, 'utf8'), pattern);
}

/** A state nobody here knows is a server fault, answered and logged as one, never guessed. */
describe('a scan state the service does not know', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('unknown-state');
  });
  after(async () => stack?.close());

  it('a stored status core does not know: unavailable, and core logs which', async () => {
    const { run_id, access_token } = (
      await callTool(stack.baseUrl, 'start_skin_scan', { source: 'unknown-state' })
    ).structuredContent;
    // As a newer replica with one more state would write it during a rolling update.
    const sql = (text: string) => stack.orm.em.getConnection().execute(text);
    await sql('alter table scans drop constraint scans_status_check');
    await sql(`update scans set status = 'on_hold' where id = '${run_id}'`);
    const res = await callTool(stack.baseUrl, 'get_skin_scan', { run_id, access_token });
    assert.equal(errorCode(res), 'unavailable', 'not awaiting_upload, not poll');
    const requestId = /request ([\w-]+)\)/.exec(res.structuredContent.error.message)![1];
    await logged(stack, new RegExp(`scan ${run_id} has a status this core does not know: \\\\"on_hold\\\\"`));
    await logged(stack, new RegExp(`"request_id":"${requestId}".*"msg":"tool call failed"`));
  });

  it('a status or next action the façade has no name for is thrown, not replaced by a default', () => {
    const known = { status: ScanStatus.QUEUED, nextAction: NextAction.POLL };
    assert.equal(scanJson(create(ScanSchema, known)).status, 'queued');
    assert.throws(
      () => scanJson(create(ScanSchema, { ...known, status: 42 as ScanStatus })),
      /core sent a scan status this façade does not know: 42/,
    );
    assert.throws(
      () => scanJson(create(ScanSchema, { ...known, nextAction: 0 as NextAction })),
      /core sent a scan next_action this façade does not know: 0/,
    );
  });
});
