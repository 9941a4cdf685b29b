/**
 * A catalog import that does not finish — killed (SIGKILL, an evicted pod) or its database gone half way —
 * leaves a catalog a client may be served: never demo products beside real ones, at any moment; running the
 * import again completes it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadDemoCatalog } from '../../services/catalog/demo-catalog.ts';
import { importHarness, real } from '../support/catalog-import.ts';

describe('a catalog import that does not finish', () => {
  const h = importHarness('catalog-interrupted');

  it('killed half way through a real import into the demo catalog: never demo beside real', async () => {
    assert.equal((await loadDemoCatalog(h.stack.orm.em.fork())).loaded, 320);
    const records = Array.from({ length: 20_000 }, (_, i) =>
      real(`r-${String(i).padStart(5, '0')}`, `Aqua, Glycerin, Niacinamide, Extract ${i}`),
    );
    const file = h.jsonl('big.jsonl', records);
    const child = spawn(process.execPath, ['scripts/catalog-import.ts', file], {
      env: { ...process.env, DATABASE_URL: h.stack.databaseUrl },
      stdio: 'ignore',
    });
    const exited = new Promise((done) => child.once('exit', done));
    const counts = async () =>
      (
        await h.stack.orm.em
          .getConnection()
          .execute<{ demo: number; real: number }[]>(
            'select count(*) filter (where demo)::int as demo, count(*) filter (where not demo)::int as real from products',
          )
      )[0]!;
    // Watch the catalog as the import writes it; kill the import once real products are in.
    let seen = await counts();
    const mixed: (typeof seen)[] = [];
    while (seen.real === 0 && child.exitCode === null) {
      seen = await counts();
      if (seen.demo > 0 && seen.real > 0) mixed.push(seen);
    }
    child.kill('SIGKILL');
    await exited;
    const after = await counts();
    assert.ok(after.real > 0, 'the import had written real products');
    assert.deepEqual(mixed, [], 'demo products were served beside real ones');
    assert.equal(after.demo, 0);

    // Running it again completes it.
    const again = await h.importFile(file);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await counts(), { demo: 0, real: 20_000 });
  });
});
