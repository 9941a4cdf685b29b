import assert from 'node:assert/strict';
import pg from 'pg';
import { GuestLimits, networkOf } from '../../facade/rate-limits.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import { loadConfig } from '../../services/shared/config.ts';
import { createTestDatabase } from '../support/database.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('rate limits', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('rate-limits', {
      limits: {
        callsPerMinute: 8,
        scansPerHour: 3,
        toolBudgets: [{ tool: 'delete_skin_scan', points: 1, durationSeconds: 60 }],
      },
    });
  });
  after(() => stack?.close());

  it('starting scans over the hourly budget → rate_limited with retry_after_seconds', async () => {
    const scans = [];
    for (let i = 0; i < 3; i++)
      scans.push(await callTool(stack.baseUrl, 'start_skin_scan', { source: 'limits' }));
    assert.deepEqual(scans.map(errorCode), [undefined, undefined, undefined]);
    const refused = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'limits' });
    assert.equal(errorCode(refused), 'rate_limited');
    const retry = refused.structuredContent.error.retry_after_seconds;
    assert.ok(Number.isInteger(retry) && retry > 3000 && retry <= 3600, String(retry));
  });

  it('a tool with a budget of its own is refused past it while other tools still answer', async () => {
    const pair = { run_id: 'x', access_token: 'y' };
    assert.equal(errorCode(await callTool(stack.baseUrl, 'delete_skin_scan', pair)), 'invalid_input');
    const refused = await callTool(stack.baseUrl, 'delete_skin_scan', pair);
    assert.equal(errorCode(refused), 'rate_limited');
    const retry = refused.structuredContent.error.retry_after_seconds;
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
  });

  it('any tool call over the per-minute budget → rate_limited, on every façade replica', async () => {
    const replica = await stack.addFacade();
    const codes: (string | undefined)[] = [];
    // 6 calls above already used 6 of the network's 8 calls this minute; the replica sees the same count.
    for (const baseUrl of [replica, stack.baseUrl, replica, stack.baseUrl]) {
      codes.push(errorCode(await callTool(baseUrl, 'get_skin_scan', { run_id: 'x', access_token: 'y' })));
    }
    assert.deepEqual(codes, ['invalid_input', 'invalid_input', 'rate_limited', 'rate_limited']);
  });

  it('networks are IPv4 addresses and IPv6 /64 prefixes', () => {
    assert.equal(networkOf('203.0.113.7'), '203.0.113.7');
    assert.equal(networkOf('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(networkOf('203.0.113.7:51234'), '203.0.113.7');
    assert.equal(networkOf('[2001:db8:1:2::1]:443'), networkOf('2001:db8:1:2::7'));
    assert.equal(networkOf('2001:db8:1:2:aaaa::1'), networkOf('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    assert.notEqual(networkOf('2001:db8:1:2::1'), networkOf('2001:db8:1:3::1'));
  });
});

describe('rate limits shared in PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pools: pg.Pool[];

  before(async () => {
    db = await createTestDatabase();
    const orm = await openDatabase(db.url);
    await migrate(orm);
    await orm.close();
    pools = [1, 2].map(() => new pg.Pool({ connectionString: db.url, max: 2 }));
  });
  after(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await db.drop();
  });

  it('two replicas share a network upload budget; another network keeps its own', async () => {
    const config = { callsPerMinute: 100, scansPerHour: 100, uploadsPerHour: 3 };
    const [a, b] = pools.map((pool) => new GuestLimits(config, pool));
    const waits = [];
    for (const limits of [a, b, a, b]) waits.push(await limits!.checkUpload('2001:db8:5:6::1'));
    assert.deepEqual(waits.slice(0, 3), [undefined, undefined, undefined]);
    assert.ok(waits[3]! > 3500 && waits[3]! <= 3600, String(waits[3]));
    assert.equal(await b!.checkUpload('2001:db8:5:7::1'), undefined);
  });

  it('signed-in callers count per account, apart from any network', async () => {
    const [a, b] = pools.map((pool) => new GuestLimits({ callsPerMinute: 1, scansPerHour: 1 }, pool));
    assert.equal(await a!.check('get_skin_scan', 'account:one'), undefined);
    const refused = await b!.check('get_skin_scan', 'account:one');
    assert.equal(refused?.code, 'rate_limited');
    assert.match(refused.message, /for this account/);
    assert.equal(await b!.check('get_skin_scan', 'account:two'), undefined);
    assert.equal(await b!.check('get_skin_scan', '203.0.113.9'), undefined);
  });

  it('an unreachable database loosens limits to each replica, never lifts them', async () => {
    const gone = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none', max: 1 });
    const limits = new GuestLimits({ callsPerMinute: 2, scansPerHour: 10 }, gone);
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await limits.check('get_skin_scan', '203.0.113.10'))?.code);
    assert.deepEqual(codes, [undefined, undefined, 'rate_limited']);
    await gone.end();
  });
});

describe('rate-limit configuration', () => {
  const env = { TOKEN_PEPPER: 'a'.repeat(64) };

  it('RATE_LIMIT_TOOLS gives tools budgets of their own', () => {
    const config = loadConfig({
      ...env,
      RATE_LIMIT_TOOLS: 'recommend_products=20/hour, get_skin_scan=5/second',
    });
    assert.deepEqual(config.toolBudgets, [
      { tool: 'recommend_products', points: 20, durationSeconds: 3600 },
      { tool: 'get_skin_scan', points: 5, durationSeconds: 1 },
    ]);
    assert.equal(config.guestUploadsPerHour, 20);
  });

  for (const bad of ['recommend_products=20', 'recommend_products=0/hour', 'x=3/week']) {
    it(`RATE_LIMIT_TOOLS="${bad}" stops the start`, () => {
      assert.throws(
        () => loadConfig({ ...env, RATE_LIMIT_TOOLS: bad }),
        /RATE_LIMIT_TOOLS: got "[^"]+", expected entries of the form tool=N\/period/,
      );
    });
  }
});
