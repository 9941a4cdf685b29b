/**
 * The catalog import as operators run it (`scripts/catalog-import.ts` against the stack's PostgreSQL), with a
 * running core to read the result back from: `importHarness` registers a describe block's hooks and
 * returns what its tests use.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { rawProduct } from './raw-product.ts';
import { type Stack, startStack } from './stack.ts';

const run = promisify(execFile);

/** A real-looking record; ids and names are invented. */
export const real = (
  id: string,
  ingredients: string | null = 'Aqua, Glycerin, Niacinamide, Phenoxyethanol',
): Record<string, unknown> => ({ ...rawProduct(id, { brand: 'Retail Brand', country: 'GB', ingredients }) });

export interface ImportHarness {
  readonly stack: Stack;
  readonly dir: string;
  readonly catalog: ReturnType<typeof createClient<typeof CatalogService>>;
  /** Runs the import on a file; its exit code and output. */
  importFile(file: string, ...flags: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  write(name: string, text: string | Uint8Array): string;
  jsonl(name: string, records: readonly object[]): string;
  /** A product's derived JSON as stored. */
  derived(id: string): Promise<any>;
  /** Stored product ids matching a SQL condition, in order. */
  ids(where?: string): Promise<string[]>;
  /** Polls the running core until it serves the product, or no longer does (it reloads on catalog_changed). */
  untilCore(id: string, present: boolean): Promise<void>;
}

/** Starts a stack for the describe block; every test starts from an empty products table. */
export function importHarness(name: string): ImportHarness {
  let stack: Stack;
  let dir: string;
  let catalog: ImportHarness['catalog'];
  before(async () => {
    stack = await startStack(name);
    dir = mkdtempSync(join(tmpdir(), `${name}-`));
    catalog = createClient(CatalogService, createGrpcTransport({ baseUrl: stack.coreUrl }));
  });
  beforeEach(() => stack.orm.em.getConnection().execute('delete from products'));
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await stack?.close();
  });

  const write = (file: string, text: string | Uint8Array) => {
    const path = join(dir, file);
    writeFileSync(path, text);
    return path;
  };
  return {
    get stack() {
      return stack;
    },
    get dir() {
      return dir;
    },
    get catalog() {
      return catalog;
    },
    importFile: (file, ...flags) =>
      run(process.execPath, ['scripts/catalog-import.ts', ...flags, file], {
        env: { ...process.env, DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'warn' },
      }).then(
        (r) => ({ code: 0, ...r }),
        (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
      ),
    write,
    jsonl: (file, records) => write(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`),
    derived: async (id) =>
      (
        await stack.orm.em.getConnection().execute(`select derived from products where product_id = ?`, [id])
      )[0]?.derived,
    ids: async (where = 'true') =>
      (
        await stack.orm.em
          .getConnection()
          .execute<{ product_id: string }[]>(
            `select product_id from products where ${where} order by product_id`,
          )
      ).map((row) => row.product_id),
    async untilCore(id, present) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = await catalog.getProduct({ productId: id }).then(
          () => true,
          (err) => {
            if (ConnectError.from(err).code !== Code.NotFound) throw err;
            return false;
          },
        );
        if (found === present) return;
        if (Date.now() > deadline) assert.fail(`core still ${present ? 'lacks' : 'serves'} ${id}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}
