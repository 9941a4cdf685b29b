/**
 * What the scan tools' texts tell an agent, against what the tools do: a blank argument is called blank,
 * not too short; `none` on /mcp never comes from a read without the token (there is none); a failed scan
 * carries completed_at, and the schema says what it means. Real MCP SDK clients on /mcp and /mcp/account.
 */
import assert from 'node:assert/strict';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG, uploadPhoto } from '../support/fixtures.ts';
import { callTool, readTool, twoEndpoints } from '../support/two-endpoints.ts';

const BLANKS = ['', '   ', '\t\n', '\u00a0\u3000'];

describe('the scan tools’ texts say what the tools do', () => {
  const ends = twoEndpoints('scan-descriptions', { products: TEST_CATALOG });

  /** The answer's schema of a tool (the listing's outputSchema is anyOf [answer, error body]). */
  const answerSchema = async (client: Client, name: string) =>
    ((await client.listTools()).tools.find((t) => t.name === name)!.outputSchema as any).anyOf[0];

  it('a blank text argument of any tool is invalid_input saying it is blank, never a length', async () => {
    const blankCalls: [Client, string, Record<string, unknown>, string][] = [
      [ends.guest, 'start_skin_scan', {}, 'source'],
      [ends.account, 'start_skin_scan', {}, 'source'],
      [ends.account, 'get_product', {}, 'product_id'],
      [ends.account, 'get_ingredient', {}, 'name'],
      [ends.account, 'search_products', {}, 'page_token'],
      [ends.account, 'list_my_scans', {}, 'page_token'],
    ];
    for (const [client, name, args, field] of blankCalls) {
      for (const blank of BLANKS) {
        const { isError, body } = await callTool(client, name, { ...args, [field]: blank });
        assert.equal(isError, true, `${name} ${JSON.stringify(blank)}`);
        assert.deepEqual(body.error, {
          code: 'invalid_input',
          message: `Argument "${field}" must not be empty or only spaces.`,
          field,
        });
      }
    }
    // A source too long is still told its length, and the description says both bounds.
    const long = await callTool(ends.guest, 'start_skin_scan', { source: 'x'.repeat(101) });
    assert.deepEqual([long.body.error.code, long.body.error.field], ['invalid_input', 'source']);
    assert.match(long.body.error.message, /100 characters/);
    const source = (await ends.guest.listTools()).tools.find((t) => t.name === 'start_skin_scan')!;
    assert.match((source.inputSchema.properties as any).source.description, /not empty or only spaces/);
    // Core says the same to its internal callers.
    const scans = createClient(
      ScanService,
      createConnectTransport({ baseUrl: ends.stack.coreUrl, httpVersion: '2' }),
    );
    for (const [sent, message] of [
      ['  \n ', 'source must not be empty or only spaces.'],
      ['y'.repeat(101), 'source must be at most 100 characters.'],
    ]) {
      await assert.rejects(scans.startScan({ source: sent }), (err) => {
        assert.equal(errorReason(err), 'invalid_input');
        assert.equal(ConnectError.from(err).rawMessage, message);
        return true;
      });
    }
  });

  it('none: on /mcp every read needs the live token; only /mcp/account reads without it, as the text says', async () => {
    const started = await readTool(ends.account, 'start_skin_scan', { source: 'scan-descriptions' });
    await completeScan(ends.stack.orm, started.run_id, RED_ACNE_SCORES);
    const pair = { run_id: started.run_id, access_token: started.access_token };
    // /mcp: no read without the token, and an expired token is not_found: neither says none.
    const tokenless = await callTool(ends.guest, 'get_skin_scan', { run_id: started.run_id });
    assert.deepEqual(
      [tokenless.body.error.code, tokenless.body.error.field],
      ['invalid_input', 'access_token'],
    );
    assert.equal((await readTool(ends.guest, 'get_skin_scan', pair)).next_action, 'recommend_products');
    assert.equal(
      (await readTool(ends.account, 'get_skin_scan', { run_id: started.run_id })).next_action,
      'none',
    );
    await ends.stack.orm.em
      .getConnection()
      .execute(`update scans set expires_at = now() - interval '1 day' where id = ?`, [started.run_id]);
    const expired = await callTool(ends.guest, 'get_skin_scan', pair);
    assert.equal(expired.body.error.code, 'not_found');
    assert.equal(
      (await readTool(ends.account, 'get_skin_scan', { run_id: started.run_id })).next_action,
      'none',
    );
    for (const client of [ends.guest, ends.account]) {
      const text = (await answerSchema(client, 'get_skin_scan')).properties.next_action.description as string;
      const none = text.slice(text.indexOf(' none ('), text.indexOf(' start_new_scan ('));
      assert.match(none, /its match is used; or, on \/mcp\/account only, you read it by run_id alone/);
      assert.match(none, /on \/mcp every read needs the live access_token/);
    }
  });

  it('a failed scan carries completed_at, which the schema calls the end of analysis, complete or failed', async () => {
    const started = await readTool(ends.guest, 'start_skin_scan', { source: 'scan-descriptions' });
    const pair = { run_id: started.run_id, access_token: started.access_token };
    // As the scan worker fails a scan whose photo shows no face.
    await ends.stack.orm.em
      .getConnection()
      .execute(
        `update scans set status = 'failed', failure_reason = 'no_face', completed_at = now() where id = ?`,
        [started.run_id],
      );
    const failed = await readTool(ends.guest, 'get_skin_scan', pair);
    assert.deepEqual([failed.status, failed.next_action], ['failed', 'ask_person_to_retake']);
    assert.ok(failed.completed_at, JSON.stringify(failed));
    // A new photo: analysis has not ended, so there is no completed_at until it does.
    await uploadPhoto(ends.stack.orm, started.run_id, new Uint8Array([0xff, 0xd8, 0xff]));
    const queued = await readTool(ends.guest, 'get_skin_scan', pair);
    assert.deepEqual([queued.status, queued.completed_at], ['queued', undefined]);
    for (const [client, name] of [
      [ends.guest, 'get_skin_scan'],
      [ends.guest, 'start_skin_scan'],
      [ends.account, 'list_my_scans'],
    ] as const) {
      const schema = await answerSchema(client, name);
      const scan = name === 'list_my_scans' ? schema.properties.scans.items : schema;
      const text = scan.properties.completed_at.description as string;
      assert.match(text, /^When analysis ended, complete or failed/, name);
      assert.match(text, /read status, not this, to know whether the scan is complete/, name);
      assert.match(text, /Absent while no analysis has ended, and again once a new photo is sent/, name);
    }
  });
});
