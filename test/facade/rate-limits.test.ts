import assert from 'node:assert/strict';
import { networkOf } from '../../facade/rate-limits.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('guest rate limits', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('rate-limits', { limits: { callsPerMinute: 8, scansPerHour: 3 } });
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

  it('any tool call over the per-minute budget → rate_limited', async () => {
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      codes.push(
        errorCode(await callTool(stack.baseUrl, 'get_skin_scan', { run_id: 'x', access_token: 'y' })),
      );
    }
    // 4 start_skin_scan calls above already used 4 of the 8 calls this minute.
    assert.deepEqual(codes, [
      'invalid_input',
      'invalid_input',
      'invalid_input',
      'invalid_input',
      'rate_limited',
      'rate_limited',
    ]);
  });

  it('networks are IPv4 addresses and IPv6 /64 prefixes', () => {
    assert.equal(networkOf('203.0.113.7'), '203.0.113.7');
    assert.equal(networkOf('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(networkOf('2001:db8:1:2:aaaa::1'), networkOf('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    assert.notEqual(networkOf('2001:db8:1:2::1'), networkOf('2001:db8:1:3::1'));
  });
});
