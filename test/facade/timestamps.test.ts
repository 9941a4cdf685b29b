/**
 * Every timestamp a tool answers (created_at, expires_at, completed_at, used_match.used_at; the spec leaves
 * them to us, the output schemas say `format: date-time`) is RFC 3339 in UTC to the millisecond, as
 * toISOString writes it, on both endpoints and in list_my_scans: never a local offset, a number of seconds
 * or a protobuf Timestamp object. And they tell the scan's story in order.
 */
import assert from 'node:assert/strict';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { readTool, twoEndpoints } from '../support/two-endpoints.ts';

const RFC3339_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every member named `…_at`, at any depth, with where it is. */
function timestamps(value: unknown, path = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, member]) => [
    ...(key.endsWith('_at') ? [[`${path}${key}`, member] as [string, unknown]] : []),
    ...timestamps(member, `${path}${key}.`),
  ]);
}

describe('timestamps in tool answers', () => {
  const ends = twoEndpoints('timestamps', { products: TEST_CATALOG });

  it('are RFC 3339 UTC with milliseconds everywhere, and in order', async () => {
    const started = await readTool(ends.account, 'start_skin_scan', { source: 'timestamps' });
    const pair = { run_id: started.run_id, access_token: started.access_token };
    await completeScan(ends.stack.orm, pair.run_id, RED_ACNE_SCORES);
    await readTool(ends.guest, 'recommend_products', pair);
    const answers = {
      start: started,
      guest: await readTool(ends.guest, 'get_skin_scan', pair),
      account: await readTool(ends.account, 'get_skin_scan', { run_id: pair.run_id }),
      listed: await readTool(ends.account, 'list_my_scans', {}),
    };
    for (const [name, answer] of Object.entries(answers)) {
      const found = timestamps(answer);
      assert.ok(found.length > 0, name);
      for (const [where, value] of found) assert.match(String(value), RFC3339_UTC_MS, `${name}: ${where}`);
    }
    assert.deepEqual(
      timestamps(answers.guest).map(([where]) => where),
      ['created_at', 'expires_at', 'completed_at', 'used_match.used_at'],
    );
    const at = (key: string) => Date.parse(answers.guest[key] ?? answers.guest.used_match[key]);
    assert.ok(at('created_at') <= at('completed_at') && at('completed_at') <= at('used_at'));
    assert.equal(at('expires_at') - at('created_at'), 7 * 24 * 3600 * 1000);
  });
});
