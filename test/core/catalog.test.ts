import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { type Stack, startStack } from '../support/stack.ts';

const run = promisify(execFile);

describe('CatalogService over gRPC', () => {
  let stack: Stack;
  let catalog: ReturnType<typeof createClient<typeof CatalogService>>;

  before(async () => {
    stack = await startStack('catalog', { products: TEST_CATALOG });
    catalog = createClient(CatalogService, createGrpcTransport({ baseUrl: stack.coreUrl }));
  });
  after(() => stack?.close());

  it('searches by text and filters, a page at a time', async () => {
    const serums = await catalog.searchProducts({ filter: { productType: 'serum' }, pageSize: 2 });
    assert.deepEqual(
      serums.products.map((p) => p.productId),
      ['t-azelaic', 't-fragrant'],
    );
    const rest = await catalog.searchProducts({
      filter: { productType: 'serum' },
      pageToken: serums.nextPageToken,
    });
    assert.deepEqual(
      rest.products.map((p) => p.productId),
      ['t-vitc'],
    );
    assert.equal(rest.nextPageToken, '');
    const text = await catalog.searchProducts({ query: 'salicylic ZINC' });
    assert.deepEqual(
      text.products.map((p) => p.productId),
      ['t-salicylic'],
    );
  });

  it('reads a word asked twice as once: the same products, and a page token of one continues the other', async () => {
    const once = await catalog.searchProducts({ query: 'serum', pageSize: 1 });
    const repeated = await catalog.searchProducts({ query: 'Serum serum SERUM', pageSize: 1 });
    assert.deepEqual(repeated, once);
    // The old search compared 'serum serum serum' against the token's 'serum' and refused it.
    const next = await catalog.searchProducts({ query: 'serum  serum', pageToken: once.nextPageToken });
    assert.deepEqual(next, await catalog.searchProducts({ query: 'serum', pageToken: once.nextPageToken }));
    assert.ok(next.products.length > 0);
  });

  it('answers a @grpc/grpc-js client', async () => {
    const definition = protoLoader.loadSync('skinmatch/v1/catalog.proto', {
      includeDirs: [resolve('proto')],
      defaults: true,
    });
    const pkg = grpc.loadPackageDefinition(definition) as any;
    const client = new pkg.skinmatch.v1.CatalogService(
      new URL(stack.coreUrl).host,
      grpc.credentials.createInsecure(),
    );
    const res: any = await new Promise((done, fail) =>
      client.searchProducts({ query: 'centella' }, (err: Error | null, r: unknown) =>
        err ? fail(err) : done(r),
      ),
    );
    client.close();
    assert.deepEqual(
      res.products.map((p: any) => [p.productId, p.attributes.vegan]),
      [['t-centella', true]],
    );
  });

  it('gets a product with its derived fields', async () => {
    const { product } = await catalog.getProduct({ productId: 't-fragrant' });
    assert.equal(product?.attributes?.fragranceFree, false);
    assert.equal(product?.attributes?.alcoholFree, false);
    assert.ok(product?.flags.includes('fragrance'));
    assert.ok(product?.ingredients.includes('niacinamide'));
  });

  it('describes ingredients: what they address, what they raise, and why', async () => {
    const { ingredient } = await catalog.getIngredient({ name: 'Parfum' });
    assert.equal(ingredient?.name, 'fragrance');
    assert.ok(ingredient?.flags.includes('fragrance'));
    assert.ok((ingredient?.reasons.length ?? 0) > 0);
    const { ingredient: azelaic } = await catalog.getIngredient({ name: 'Azelaic Acid' });
    assert.ok(azelaic?.addresses.some((a) => a.concern === 'redness' && a.evidence >= 2));
    const found = await catalog.searchIngredients({ query: 'alcohol', pageSize: 100 });
    assert.ok(
      found.ingredients.some((i) => i.name === 'alcohol denat' || i.flags.includes('drying-alcohols')),
    );
  });

  it('unknown product or ingredient → not_found; bad page token or filter → invalid_input', async () => {
    const expect = async (call: Promise<unknown>, code: Code, reason: string) =>
      assert.rejects(call, (err) => {
        assert.equal(ConnectError.from(err).code, code);
        assert.equal(errorReason(err), reason);
        return true;
      });
    await expect(catalog.getProduct({ productId: 'nope' }), Code.NotFound, 'not_found');
    await expect(catalog.getIngredient({ name: 'unobtainium' }), Code.NotFound, 'not_found');
    await expect(catalog.searchProducts({ pageToken: 'x' }), Code.InvalidArgument, 'invalid_input');
    await expect(catalog.searchProducts({ pageSize: -1 }), Code.InvalidArgument, 'invalid_input');
    await expect(catalog.searchIngredients({ pageToken: '-3' }), Code.InvalidArgument, 'invalid_input');
    await expect(
      catalog.searchProducts({ filter: { skinType: 'purple' } }),
      Code.InvalidArgument,
      'invalid_input',
    );
  });
});

describe('npm run catalog:import', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  let stack: Stack;
  let dir: string;
  before(async () => {
    stack = await startStack('catalog-import');
    dir = mkdtempSync(join(tmpdir(), 'catalog-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await stack?.close();
  });

  const importFile = (file: string) =>
    run(process.execPath, ['scripts/catalog-import.ts', file], {
      env: { ...process.env, DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'warn' },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );
  const count = async () =>
    Number((await stack.orm.em.getConnection().execute('select count(*) as n from products'))[0]!.n);

  it('imports JSON Lines idempotently and reports every rejected line with its reason', async () => {
    const file = join(dir, 'catalog.jsonl');
    const lines = [
      JSON.stringify(TEST_CATALOG[0]),
      JSON.stringify(TEST_CATALOG[1]),
      '{not json',
      JSON.stringify({ ...TEST_CATALOG[2], name: '' }),
      JSON.stringify({ ...TEST_CATALOG[3], product_url: 'ftp://x' }),
      JSON.stringify(TEST_CATALOG[0]),
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);
    const first = await importFile(file);
    assert.equal(first.code, 1);
    assert.match(first.stdout, /3 products imported/);
    assert.match(first.stderr, /rejected line 3: not valid JSON/);
    assert.match(first.stderr, /rejected line 4: name is required/);
    assert.match(
      first.stderr,
      /warning line 5 \([^)]+\): product_url "ftp:\/\/x" is not an absolute http\(s\) URL/,
    );
    assert.match(first.stderr, /rejected line 6: duplicate product_id \(first on line 1\)/);
    assert.equal(await count(), 3);
    await importFile(file);
    assert.equal(await count(), 3);

    // The running core hears the products table change and reloads its catalog by itself.
    const catalog = createClient(CatalogService, createGrpcTransport({ baseUrl: stack.coreUrl }));
    const deadline = Date.now() + 10_000;
    let found: string | undefined;
    while (!found && Date.now() < deadline) {
      found = await catalog.getProduct({ productId: TEST_CATALOG[1]!.product_id }).then(
        (r) => r.product?.productId,
        () => undefined,
      );
      if (!found) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(found, TEST_CATALOG[1]!.product_id);
  });

  it('imports CSV with quoted INCI lists and ;-separated skin types', async () => {
    const file = join(dir, 'catalog.csv');
    writeFileSync(
      file,
      [
        'product_id,name,brand,product_type,country,image_url,product_url,buy_url,ingredients,skin_types,vegan,cruelty_free,demo',
        'csv-1,Csv Serum,Csvbrand,serum,FR,,,,"Aqua, Niacinamide, Zinc PCA (and) Glycerin",oily;combination,true,,true',
        'csv-2,Csv Toner,Csvbrand,toner,FR,,,,"Water, Alcohol Denat., Parfum",,maybe,,true',
      ].join('\n'),
    );
    const result = await importFile(file);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /rejected line 3: vegan must be true\/false, yes\/no, .* \(got the text "maybe"\)/,
    );
    const rows = await stack.orm.em
      .getConnection()
      .execute(`select derived->'skin_types' as s, vegan from products where product_id = 'csv-1'`);
    assert.deepEqual(rows[0]!.s, ['oily', 'combination']);
    assert.equal(rows[0]!.vegan, true);
  });

  it('an unreadable file → exit code 2', async () => {
    const result = await importFile('/nonexistent/catalog.xml');
    assert.equal(result.code, 2);
  });
});
