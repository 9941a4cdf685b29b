/**
 * The container image, as far as this machine can check it without a Docker daemon or a registry: the
 * Dockerfile's stages and user, that everything each role imports at run time is copied into the image and
 * installed by `npm ci --omit=dev`, the build context, and the entry point itself run for real (the migrate
 * role against a fresh PostgreSQL database, whose queue table the chart's KEDA query then reads).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import pg from 'pg';
import { ROLES } from '../../scripts/role.ts';
import { createTestDatabase } from '../support/database.ts';
import { find, render } from '../support/helm.ts';

const dockerfile = readFileSync('Dockerfile', 'utf8');
const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as {
  dependencies: Record<string, string>;
};

/** The Dockerfile's instructions, line continuations joined, comments dropped. */
function instructions(): { op: string; args: string }[] {
  return dockerfile
    .replace(/\\\n(\s*#.*\n)*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** The instructions of each stage, by stage name. */
function stages(): Map<string, { op: string; args: string }[]> {
  const result = new Map<string, { op: string; args: string }[]>();
  let current: { op: string; args: string }[] | undefined;
  for (const instruction of instructions()) {
    if (instruction.op === 'FROM') {
      const name = /\bAS\s+(\S+)$/i.exec(instruction.args)?.[1];
      assert.ok(name, `every stage is named: FROM ${instruction.args}`);
      current = [instruction];
      result.set(name, current);
    } else current?.push(instruction);
  }
  return result;
}

/** Every module a role loads, following relative imports (type-only imports are erased by Node). */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8').replace(/import\s+type\s[\s\S]*?from\s+'[^']+';/g, '');
    const specifiers = source.matchAll(
      /(?:^|\n)\s*(?:import|export)\s(?:[\s\S]*?\sfrom\s)?'([^']+)'|import\('([^']+)'\)/g,
    );
    for (const m of specifiers) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(resolve(entry));
  return { files, packages };
}

describe('container image', () => {
  it('builds in two stages on node:24-slim: production dependencies, then a non-root runtime', () => {
    const byName = stages();
    assert.deepEqual([...byName.keys()], ['deps', 'runtime']);
    assert.match(dockerfile, /^ARG NODE_IMAGE=node:24-slim$/m);
    for (const stage of byName.values()) assert.match(stage[0]!.args, /^\$\{NODE_IMAGE\} AS /);
    const deps = byName.get('deps')!;
    assert.ok(deps.some((i) => i.op === 'RUN' && /\bnpm ci --omit=dev\b/.test(i.args)));
    const runtime = byName.get('runtime')!;
    const users = runtime.filter((i) => i.op === 'USER');
    assert.equal(users.length, 1);
    const [uid] = users[0]!.args.split(':');
    assert.match(uid!, /^[1-9][0-9]*$/, 'a numeric, non-root user (Kubernetes can verify runAsNonRoot)');
    assert.ok(runtime.indexOf(users[0]!) > runtime.findLastIndex((i) => i.op === 'COPY' || i.op === 'RUN'));
    assert.deepEqual(runtime.find((i) => i.op === 'ENTRYPOINT')?.args, '["node", "scripts/role.ts"]');
    assert.ok(runtime.some((i) => i.op === 'ENV' && i.args === 'NODE_ENV=production'));
    assert.match(readFileSync('.npmrc', 'utf8'), /^onnxruntime-node-install=skip$/m);
  });

  it('copies into the image everything each role loads, and needs no devDependency at run time', () => {
    const copied = stages()
      .get('runtime')!
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const source of copied) assert.ok(existsSync(source), `${source} exists`);
    const inImage = (file: string) =>
      copied.some((source) => {
        const path = resolve(source);
        return file === path || (statSync(path).isDirectory() && file.startsWith(`${path}/`));
      });
    for (const [role, entry] of Object.entries({ ...ROLES, entry: 'scripts/role.ts' })) {
      const { files, packages } = importGraph(entry);
      assert.ok(files.size > (role === 'entry' ? 0 : 3), `${role}: the graph was walked`);
      assert.deepEqual(
        [...files].filter((f) => !inImage(f)),
        [],
        `${role}: modules outside the image`,
      );
      const missing = [...packages].filter((p) => !(p in packageJson.dependencies));
      assert.deepEqual(missing, [], `${role}: packages that npm ci --omit=dev does not install`);
    }
    // Files read at run time, not imported: the ONNX graphs and the demo catalog.
    for (const file of ['services/inference/models/skin-measures.onnx', 'data/sample-catalog.jsonl'])
      assert.ok(inImage(resolve(file)), file);
  });

  it('sends the builder only what the image copies, never development state', () => {
    const lines = readFileSync('.dockerignore', 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    assert.equal(lines[0], '*', 'everything is excluded first');
    const included = lines.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, ''));
    assert.deepEqual(included.sort(), [
      '.npmrc',
      'data',
      'facade',
      'gen',
      'package-lock.json',
      'package.json',
      'scripts',
      'services',
    ]);
  });

  it('refuses an unknown role with its usage', () => {
    const run = spawnSync(process.execPath, ['scripts/role.ts', 'worker'], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(run.stderr, 'usage: node scripts/role.ts <facade|core|inference|migrate>, got "worker"\n');
  });

  it('names an existing module for every role', () => {
    assert.deepEqual(Object.keys(ROLES), ['facade', 'core', 'inference', 'migrate']);
    for (const entry of Object.values(ROLES)) assert.ok(existsSync(entry), entry);
  });

  describe('the migrate role on a fresh database', function () {
    this.timeout(120_000);
    let database: { url: string; drop: () => Promise<void> };
    const migrate = (env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, ['scripts/role.ts', 'migrate'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
      });

    before(async () => {
      database = await createTestDatabase();
    });
    after(async () => {
      await database?.drop();
    });

    it('exits 78 (a configuration refused) without DATABASE_URL, saying so on stderr', () => {
      const run = migrate({});
      assert.equal(run.status, 78);
      assert.equal(
        run.stderr,
        'migrate: configuration refused (1 problem):\n  DATABASE_URL: not set, expected a postgres:// connection string\n',
      );
    });

    it('applies every migration and the queue tables, then finds nothing to do', async () => {
      const first = migrate({ DATABASE_URL: database.url });
      assert.equal(first.status, 0, first.stderr);
      assert.match(first.stdout, /"msg":"migrations applied"/);
      const second = migrate({ DATABASE_URL: database.url });
      assert.equal(second.status, 0, second.stderr);
      assert.match(second.stdout, /"applied":\[\],"msg":"schema already up to date"/);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const applied = await client.query('select name from schema_migrations order by name');
        const listed = [...readFileSync('services/core/db/orm.ts', 'utf8').matchAll(/name: '([^']+)'/g)].map(
          (m) => m[1],
        );
        assert.deepEqual(
          applied.rows.map((r) => r.name),
          listed,
        );
        const jobs = await client.query('select count(*)::int as n from graphile_worker.jobs');
        assert.equal(jobs.rows[0].n, 0);
      } finally {
        await client.end();
      }
    });

    it("answers the chart's KEDA query with the analyses due", async () => {
      const values = {
        publicBaseUrl: 'https://skin.example.com',
        database: { existingSecret: 'db' },
        secrets: { existingSecret: 's' },
        oauth: {
          identityProviders: [1, 2].map((n) => ({
            issuer: `https://idp${n}.example.com`,
            clientId: `c${n}`,
          })),
        },
        keda: { enabled: true },
      };
      const query = find(render(values), 'ScaledObject', 'rel-skinmatch-inference').spec.triggers[0].metadata
        .query;
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const depth = async () => (await client.query(query)).rows[0].count;
        assert.equal(await depth(), '0');
        await client.query(`select graphile_worker.add_job('analyze_scan', '{"run_id":"a"}')`);
        await client.query(`select graphile_worker.add_job('analyze_scan', '{"run_id":"b"}')`);
        // Not counted: a job waiting out its retry backoff, and another task's job.
        await client.query(
          `select graphile_worker.add_job('analyze_scan', '{"run_id":"c"}', run_at := now() + interval '1 hour')`,
        );
        await client.query(`select graphile_worker.add_job('something_else', '{}')`);
        assert.equal(await depth(), '2');
      } finally {
        await client.end();
      }
    });
  });
});
