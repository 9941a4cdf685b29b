import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * Each worker waits at a shared barrier, then reads the development key as a starting process does; the
 * key file is missing, so all of them race to create it.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
import(workerData.module).then(({ readSecret }) => {
  const gate = new Int32Array(workerData.gate);
  Atomics.add(gate, 0, 1);
  Atomics.wait(gate, 1, 0);
  try {
    const reader = { value: () => undefined, problem: () => {}, fault: () => {} };
    const spec = { name: 'TEST_KEY', fileName: 'test-key', expected: 'a key', generate: () => crypto.randomUUID() };
    parentPort.postMessage({ key: readSecret(spec, { reader, production: false, dataDir: workerData.dir, warnings: [] }) });
  } catch (err) {
    parentPort.postMessage({ error: String(err) });
  }
});
`;

describe('development keys', () => {
  it('processes starting at once all read the one key the first of them wrote, none fails', async function () {
    // 120 workers in all, each loading the module: 6 s on a quiet machine, over 30 on one with a load of 18.
    this.timeout(180_000);
    const module = new URL('../../services/shared/secrets.ts', import.meta.url).href;
    for (let round = 0; round < 20; round++) {
      const dir = mkdtempSync(join(tmpdir(), 'skinmatch-secrets-'));
      try {
        const gate = new SharedArrayBuffer(8);
        const count = 6;
        const answers = Array.from({ length: count }, () => {
          const worker = new Worker(WORKER, { eval: true, workerData: { module, dir, gate } });
          return new Promise<{ key?: string; error?: string }>((resolve, reject) => {
            worker.once('message', (answer) => {
              resolve(answer);
              void worker.terminate();
            });
            worker.once('error', reject);
          });
        });
        const flags = new Int32Array(gate);
        while (Atomics.load(flags, 0) < count) await new Promise((resolve) => setTimeout(resolve, 1));
        Atomics.store(flags, 1, 1);
        Atomics.notify(flags, 1);
        const got = await Promise.all(answers);
        assert.deepEqual(
          got.filter((answer) => answer.error),
          [],
          `round ${round}`,
        );
        assert.equal(new Set(got.map((answer) => answer.key)).size, 1, `round ${round}: one key for all`);
        assert.match(got[0]!.key!, /^[0-9a-f-]{36}$/);
        assert.deepEqual(readdirSync(dir), ['test-key'], 'no draft left behind');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
