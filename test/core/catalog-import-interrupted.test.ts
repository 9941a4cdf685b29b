/**
 * A catalog import that does not finish — killed (SIGKILL, an evicted pod) or its database gone half way —
 * leaves a catalog a client may be served: never demo products beside real ones, at any moment; running the
 * import again completes it. And the operator commands stop with one line and an exit status that tells a
 * failed database apart from the command's own answers (catalog:import's 1 means "some records rejected,
 * the rest imported"; 3 means the database failed).
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/port.ts';
import { loadDemoCatalog } from '../../services/catalog/demo-catalog.ts';
import { importHarness, real } from '../support/catalog-import.ts';

const run = promisify(execFile);

/** Runs a script; its exit code and output. */
const script = (file: string, args: string[], env: NodeJS.ProcessEnv) =>
  run(process.execPath, [file, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, ...r }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );

describe('a catalog import that does not finish, and operator commands that fail', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
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

  it('Ctrl-C or SIGTERM half way: one line saying what is left, as a failed database says it', async () => {
    const records = Array.from({ length: 20_000 }, (_, i) =>
      real(`s-${String(i).padStart(5, '0')}`, `Aqua, Glycerin, Extract ${i}`),
    );
    const file = h.jsonl('signal.jsonl', records);
    for (const [signal, code] of [
      ['SIGTERM', 143],
      ['SIGINT', 130],
    ] as const) {
      await h.stack.orm.em.getConnection().execute('delete from products');
      const child = spawn(process.execPath, ['scripts/catalog-import.ts', file], {
        env: { ...process.env, DATABASE_URL: h.stack.databaseUrl, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      // 'close', not 'exit': at 'exit' its stderr may still hold the line checked below.
      const exited = new Promise<number | null>((done) => child.once('close', (c) => done(c)));
      while ((await h.ids()).length === 0 && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 20));
      child.kill(signal);
      assert.equal(await exited, code, stderr);
      assert.match(
        stderr,
        new RegExp(
          `\\ncatalog:import: stopped by ${signal}\\. Any products written before it stay, nothing was withdrawn: run the import again\\n$`,
        ),
      );
    }
  });

  it('an unreachable database: exit 3 and one line naming it, never the password nor a stack trace', async () => {
    const url = `postgresql://skinmatch:Sup3rSecretPassw0rd@127.0.0.1:${await freePort()}/skinmatch`;
    const file = h.jsonl('one.jsonl', [real('r-1')]);
    const imported = await script('scripts/catalog-import.ts', [file], { DATABASE_URL: url });
    const admin = await script('scripts/admin.ts', ['admissions', 'status'], { DATABASE_URL: url });
    assert.equal(imported.code, 3);
    assert.match(
      imported.stderr,
      /^catalog:import: the database failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\. Any products written before it stay, nothing was withdrawn: run the import again\n$/,
    );
    assert.equal(admin.code, 3);
    assert.match(admin.stderr, /^admin: the database failed: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/);
    for (const output of [imported.stdout, imported.stderr, admin.stdout, admin.stderr]) {
      assert.doesNotMatch(output, /Sup3rSecretPassw0rd/);
    }
  });

  it('a refused configuration: exit 78 with the problem; wrong usage: exit 2', async () => {
    const bad = { DATABASE_URL: 'db.example.internal:5432' };
    const admin = await script('scripts/admin.ts', ['admissions', 'status'], bad);
    assert.equal(admin.code, 78);
    assert.equal(
      admin.stderr,
      'admin: configuration refused (1 problem):\n  DATABASE_URL: got a value that is not such a URL (24 characters), expected a URL starting with postgres:// or postgresql://\n',
    );
    const imported = await script('scripts/catalog-import.ts', [h.jsonl('x.jsonl', [real('r-2')])], bad);
    assert.equal(imported.code, 78);
    const extra = await script('scripts/admin.ts', ['admissions', 'off', 'now'], {
      DATABASE_URL: h.stack.databaseUrl,
    });
    assert.deepEqual(extra, {
      code: 2,
      stdout: '',
      stderr: 'usage: npm run admin -- admissions off|on|status\n',
    });
  });
});
