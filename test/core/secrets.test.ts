import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hashToken } from '../../services/scan/token.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack, TEST_PEPPER } from '../support/stack.ts';

describe('the scan access token is a secret', () => {
  let stack: Stack;
  let token: string;

  before(async () => {
    stack = await startStack('secrets');
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'secrets' });
    token = started.structuredContent.access_token;
    const identity = { run_id: started.structuredContent.run_id, access_token: token };
    await callTool(stack.baseUrl, 'get_skin_scan', identity);
    await callTool(stack.baseUrl, 'get_skin_scan', { ...identity, unknown: true });
    await callTool(stack.baseUrl, 'get_skin_scan', { ...identity, run_id: 'x' });
  });
  after(() => stack?.close());

  it('no column of any table holds it; only its keyed hash is stored', async () => {
    const connection = stack.orm.em.getConnection();
    const tables = await connection.execute<{ table_name: string }[]>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    assert.ok(tables.length >= 3);
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await connection.execute<{ row: string }[]>(
        `select t::text as row from "${table_name}" t`,
      );
      dump += rows.map((r: { row: string }) => r.row).join('\n');
    }
    assert.ok(!dump.includes(token), 'token found in the database');
    assert.ok(dump.includes(hashToken(TEST_PEPPER, token)), 'the keyed hash is what is stored');
  });

  it('no log line holds it, even at debug level and on failed calls', () => {
    const logs = readFileSync(stack.logFile, 'utf8');
    assert.ok(logs.length > 0, 'the stack logged something');
    assert.ok(!logs.includes(token));
    assert.doesNotMatch(logs, /[a-f0-9]{64}/);
  });
});
