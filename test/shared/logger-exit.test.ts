/**
 * Every line a process logged reaches its stdout, even when it exits at once: a shutdown logs what it did
 * (`handed back to the queue`, `stopped`) and calls process.exit. pino's default destination writes
 * asynchronously, and what it was still writing when the process exited was lost whenever the reader of
 * its stdout lagged: 53 of 2001 lines behind a full pipe, and once core's `handed back` line in CI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

describe('logging at exit', function () {
  this.timeout(60_000);

  it('keeps every line written before process.exit, though the reader of stdout lags behind', async () => {
    const lines = 2000; // 2000 lines of ~300 bytes: many times a pipe's 64 KiB
    const child = spawn(process.execPath, ['test/support/log-then-exit.ts', String(lines)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pause(); // the pipe fills, and the writer has to wait
    await sleep(1000);
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.stdout.resume();
    const code = await new Promise((done) => child.once('close', done));
    assert.equal(code, 0);
    const written = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; i?: number });
    assert.equal(written.length, lines + 1);
    assert.deepEqual(
      written.map((entry) => entry.i ?? entry.msg),
      [...Array.from({ length: lines }, (_, i) => i), 'last'],
    );
  });
});
