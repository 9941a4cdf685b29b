import assert from 'node:assert/strict';
import { callTool, twoEndpoints } from '../support/two-endpoints.ts';

/**
 * The spec gives get_skin_scan the arguments run_id and access_token (both required) and delete_skin_scan
 * the scan identity pair, on either endpoint. On /mcp/account a client following it sent both and was
 * refused `invalid_input` ("Unknown argument access_token"). Now the pair works there exactly as on /mcp;
 * run_id alone still names one of the account's own scans.
 */
describe('get_skin_scan and delete_skin_scan on /mcp/account take the scan identity pair', () => {
  const ends = twoEndpoints('scan-identity-pair');

  const call = callTool;
  const NOT_FOUND = {
    code: 'not_found',
    message:
      'No scan matches this run_id and access_token: it was deleted, has expired (a guest scan’s access_token stops working seven days after it was issued) or never existed. Start a new scan only if the person asks for one.',
  };

  it('lists access_token as an optional argument of both', async () => {
    const { tools } = await ends.account.listTools();
    for (const name of ['get_skin_scan', 'delete_skin_scan']) {
      const schema = tools.find((tool) => tool.name === name)!.inputSchema as Record<string, any>;
      assert.deepEqual(schema.required, ['run_id'], name);
      assert.equal(schema.properties.access_token.pattern, '^[a-f0-9]{64}$', name);
    }
  });

  it('reads and deletes the account’s scan with its pair; a wrong token is not_found', async () => {
    const started = (await call(ends.account, 'start_skin_scan', { source: 'pair' })).body;
    const pair = { run_id: started.run_id, access_token: started.access_token };

    const read = await call(ends.account, 'get_skin_scan', pair);
    assert.equal(read.isError, undefined, JSON.stringify(read.body));
    assert.equal(read.body.run_id, started.run_id);
    assert.equal(read.body.status, 'awaiting_upload');
    const wrong = await call(ends.account, 'get_skin_scan', { ...pair, access_token: 'e'.repeat(64) });
    assert.equal(wrong.isError, true);
    assert.deepEqual(wrong.body.error, NOT_FOUND);
    const malformed = await call(ends.account, 'get_skin_scan', { ...pair, access_token: 'E'.repeat(64) });
    assert.equal(malformed.body.error.code, 'invalid_input');
    assert.equal(malformed.body.error.field, 'access_token');

    const deleted = await call(ends.account, 'delete_skin_scan', pair);
    assert.deepEqual(deleted, { isError: undefined, body: { run_id: started.run_id, deleted: true } });
    const gone = await call(ends.account, 'get_skin_scan', { run_id: started.run_id });
    assert.equal(gone.body.error.code, 'not_found');
    assert.deepEqual((await call(ends.account, 'delete_skin_scan', pair)).body.error, NOT_FOUND);
  });

  it('with the pair, a scan in no account reads as on /mcp; by run_id alone it is not the account’s', async () => {
    const started = (await call(ends.guest, 'start_skin_scan', { source: 'pair guest' })).body;
    const pair = { run_id: started.run_id, access_token: started.access_token };
    assert.deepEqual(
      (await call(ends.account, 'get_skin_scan', pair)).body,
      (await call(ends.guest, 'get_skin_scan', pair)).body,
    );
    const alone = await call(ends.account, 'get_skin_scan', { run_id: started.run_id });
    assert.deepEqual(alone.body.error, {
      code: 'not_found',
      message: 'The account has no scan with this run_id.',
    });
  });
});
