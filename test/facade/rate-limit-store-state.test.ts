/**
 * Where the rate limits count is told once per change: when the database's lookups start failing (the
 * façade logs a warning and sets skinmatch_rate_limits_shared to 0) and when they answer again — not on
 * every failed lookup, nor on every lookup counted in memory meanwhile.
 */
import assert from 'node:assert/strict';
import { GuestLimits } from '../../facade/rate-limits.ts';

/** A store that refuses every query while `down`, and grants every lease once up. */
function flakyStore() {
  const store = {
    down: true,
    queries: 0,
    async query(statement: { values: unknown[] }) {
      store.queries++;
      if (store.down) throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      const [, size, expire] = statement.values as [string, number, number];
      return { rows: [{ points: size, expire: String(expire) }] };
    },
  };
  return store;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limits: the database store’s state, told once per change', () => {
  it('tells the first failed lookup and the first answer after, nothing in between', async () => {
    const store = flakyStore();
    const changes: Array<[boolean, string | undefined]> = [];
    const limits = new GuestLimits(
      { callsPerMinute: 100, scansPerHour: 100, storeRetryMs: 100 },
      store as never,
      { storeChanged: (shared, failure) => changes.push([shared, failure]) },
    );
    const calls = async (n: number) => {
      for (let i = 0; i < n; i++)
        assert.equal(await limits.check('get_skin_scan', '203.0.113.30'), undefined);
    };
    await calls(5);
    await pause(150);
    await calls(5); // the retry fails again: still one change
    assert.ok(store.queries >= 2, `asked the store again after the retry delay (${store.queries})`);
    assert.deepEqual(changes, [[false, 'connect ECONNREFUSED 127.0.0.1:1']]);
    store.down = false;
    await pause(150);
    await calls(5);
    assert.deepEqual(changes, [
      [false, 'connect ECONNREFUSED 127.0.0.1:1'],
      [true, undefined],
    ]);
    limits.close();
  });
});
