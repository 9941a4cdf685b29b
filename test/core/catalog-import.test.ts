import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { loadDemoCatalog } from '../../services/catalog/demo-catalog.ts';
import { loadConfig } from '../../services/shared/config.ts';
import { type Stack, startStack } from '../support/stack.ts';

const run = promisify(execFile);

/** A real-looking record; ids and names are invented. */
const real = (id: string, ingredients: string | null = 'Aqua, Glycerin, Niacinamide, Phenoxyethanol') => ({
  product_id: id,
  name: `Product ${id}`,
  brand: 'Retail Brand',
  product_type: 'serum',
  country: 'GB',
  image_url: null,
  product_url: null,
  buy_url: null,
  ingredients,
  skin_types: null,
  vegan: null,
  cruelty_free: null,
});

describe('catalog import of retailer data', () => {
  let stack: Stack;
  let dir: string;
  let catalog: ReturnType<typeof createClient<typeof CatalogService>>;

  before(async () => {
    stack = await startStack('catalog-retailer');
    dir = mkdtempSync(join(tmpdir(), 'catalog-retailer-'));
    catalog = createClient(CatalogService, createGrpcTransport({ baseUrl: stack.coreUrl }));
  });
  beforeEach(() => stack.orm.em.getConnection().execute('delete from products'));
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await stack?.close();
  });

  const importFile = (file: string, ...flags: string[]) =>
    run(process.execPath, ['scripts/catalog-import.ts', ...flags, file], {
      env: { ...process.env, DATABASE_URL: stack.databaseUrl, LOG_LEVEL: 'warn' },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const jsonl = (name: string, records: readonly object[]) =>
    write(name, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const derived = async (id: string) =>
    (await stack.orm.em.getConnection().execute(`select derived from products where product_id = ?`, [id]))[0]
      ?.derived;
  const ids = async (where = 'true') =>
    (
      await stack.orm.em
        .getConnection()
        .execute<{ product_id: string }[]>(
          `select product_id from products where ${where} order by product_id`,
        )
    ).map((row) => row.product_id);

  /** Polls the running core until it serves the product, or no longer does (it reloads on catalog_changed). */
  async function untilCore(id: string, present: boolean): Promise<void> {
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
  }

  it('a CSV with placeholders, shop copy and multi-line lists: warnings on file lines, flags unknown', async () => {
    const header =
      'product_id,name,brand,product_type,country,image_url,product_url,buy_url,ingredients,skin_types,vegan,cruelty_free';
    const file = write(
      'retailer.csv',
      [
        header,
        'r-multi,Multi Line Cream,B,moisturizer,GB,,,,"Aqua,',
        'Glycerin,',
        'Cetearyl Alcohol, Parfum",,,',
        'r-boutique,Boutique Serum,B,serum,GB,,,,Visit the Retail Brand boutique,,,',
        'r-bullets,Bullet Gel,B,serum,GB,,,,"• Hydrates for 24 hours',
        '• Suitable for sensitive skin',
        '• Free from synthetic fragrance",,,',
        'r-badurl,Bad Url,B,serum,GB,ftp://x,,,"Aqua, Glycerin",,,',
        'r-noinfo,No Info Toner,B,toner,GB,,,,No Info,,,',
        'r-disclaimer,Disclaimer Serum,B,serum,GB,,,,"Aqua, Glycerin, Niacinamide. Free from synthetic fragrance.",,,',
      ].join('\r\n'),
    );
    const result = await importFile(file);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /5 products imported/);
    assert.match(result.stderr, /rejected line 9: image_url must be an http\(s\) URL/);
    assert.match(result.stderr, /warning line 5 \(r-boutique\): ingredients are not an ingredient list/);
    assert.match(result.stderr, /warning line 6 \(r-bullets\): ingredients are not an ingredient list/);
    assert.match(result.stderr, /warning line 10 \(r-noinfo\): ingredients are not an ingredient list/);
    assert.match(result.stderr, /warning line 11 \(r-disclaimer\): ingredients: left out text/);
    assert.doesNotMatch(result.stderr, /r-multi/);
    for (const id of ['r-boutique', 'r-bullets', 'r-noinfo']) {
      const product = await derived(id);
      assert.equal(product.ingredients_status, 'not_a_list', id);
      assert.deepEqual(
        [
          product.attributes.fragrance_free,
          product.attributes.alcohol_free,
          product.attributes.fungal_acne_safe,
        ],
        [null, null, null],
        id,
      );
      assert.deepEqual(product.parsed_ingredients, [], id);
    }
    const multi = await derived('r-multi');
    assert.deepEqual(
      multi.parsed_ingredients.map((i: { name: string }) => i.name),
      ['water', 'glycerin', 'cetearyl alcohol', 'fragrance'],
    );
    assert.equal(multi.attributes.fragrance_free, false);
    // A disclaimer naming fragrance is shop copy, not an ingredient.
    const disclaimer = await derived('r-disclaimer');
    assert.equal(disclaimer.ingredients_status, 'listed');
    assert.equal(disclaimer.attributes.fragrance_free, true);
  });

  it('--replace withdraws what a full import no longer lists, and the running core stops serving it', async () => {
    assert.equal((await importFile(jsonl('full-1.jsonl', [real('x-1'), real('x-2'), real('x-3')]))).code, 0);
    await untilCore('x-3', true);
    const partial = await importFile(jsonl('partial.jsonl', [real('x-1')]));
    assert.equal(partial.code, 0);
    assert.deepEqual(await ids(), ['x-1', 'x-2', 'x-3'], 'without --replace an import only adds');

    const full = await importFile(
      jsonl('full-2.jsonl', [real('x-1'), real('x-2'), real('x-4')]),
      '--replace',
    );
    assert.equal(full.code, 0, full.stderr);
    assert.match(full.stdout, /1 products withdrawn/);
    assert.deepEqual(await ids(), ['x-1', 'x-2', 'x-4']);
    await untilCore('x-3', false);
    await untilCore('x-4', true);
  });

  it('--replace keeps products whose line was rejected, and withdraws nothing if a line names no product', async () => {
    await importFile(jsonl('base.jsonl', [real('y-1'), real('y-2'), real('y-3')]));
    const kept = await importFile(
      jsonl('bad-url.jsonl', [real('y-1'), { ...real('y-2'), buy_url: 'not a url' }]),
      '--replace',
    );
    assert.equal(kept.code, 1);
    assert.deepEqual(await ids(), ['y-1', 'y-2']);
    const file = write('broken.jsonl', `${JSON.stringify(real('y-1'))}\n{broken\n`);
    const skipped = await importFile(file, '--replace');
    assert.equal(skipped.code, 1);
    assert.match(skipped.stderr, /nothing withdrawn: some rejected lines name no product_id/);
    assert.deepEqual(await ids(), ['y-1', 'y-2']);
  });

  it('a NUL character in any stored field rejects that record, naming line and field; the rest import whole', async () => {
    // Past the first write batch, so a record that reached PostgreSQL would fail a batch after others committed.
    const records: Record<string, unknown>[] = Array.from({ length: 2600 }, (_, i) =>
      real(`n-${String(i).padStart(4, '0')}`),
    );
    const poisoned = {
      1200: ['name', (r: Record<string, unknown>) => ({ ...r, name: `${r.name}\u0000` })],
      1999: ['brand', (r: Record<string, unknown>) => ({ ...r, brand: '\u0000Brand' })],
      2100: ['ingredients', (r: Record<string, unknown>) => ({ ...r, ingredients: 'Aqua,\u0000 Glycerin' })],
      2400: ['skin_types', (r: Record<string, unknown>) => ({ ...r, skin_types: ['dry', 'oi\u0000ly'] })],
      2500: ['product_id', (r: Record<string, unknown>) => ({ ...r, product_id: `${r.product_id}\u0000` })],
    } as const;
    for (const [at, [, poison]] of Object.entries(poisoned))
      records[Number(at)] = poison(records[Number(at)]!);
    const bad = Object.keys(poisoned).length;

    const result = await importFile(jsonl('nul.jsonl', records));
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, new RegExp(`^${records.length - bad} products imported`));
    const rejections = result.stderr.split('\n').filter((line) => line.startsWith('rejected line'));
    assert.deepEqual(
      rejections,
      Object.entries(poisoned).map(
        ([at, [field]]) => `rejected line ${Number(at) + 1}: ${field} contains a NUL character (U+0000)`,
      ),
    );
    assert.equal((await ids()).length, records.length - bad);

    // CSV carries the character the same way.
    const csv = write(
      'nul.csv',
      [
        'product_id,name,brand,product_type,country,image_url,product_url,buy_url,ingredients,skin_types,vegan,cruelty_free',
        'c-1,Good,B,serum,GB,,,,"Aqua, Glycerin",,,',
        'c-2,Bad\u0000Name,B,serum,GB,,,,"Aqua, Glycerin",,,',
      ].join('\n'),
    );
    const fromCsv = await importFile(csv);
    assert.equal(fromCsv.code, 1, fromCsv.stderr);
    assert.match(fromCsv.stderr, /rejected line 3: name contains a NUL character \(U\+0000\)/);
    assert.ok((await ids()).includes('c-1'));
  });

  it('a CSV row with a field too many or too few is rejected on its own line; the other rows import', async () => {
    const header =
      'product_id,name,brand,product_type,country,image_url,product_url,buy_url,ingredients,skin_types,vegan,cruelty_free';
    const good = (id: string) => `${id},Name ${id},B,serum,GB,,,,"Aqua, Glycerin",,,`;
    // The shapes exports produce: an unquoted comma in a field, a trailing comma, a row cut short, and a
    // row cut short inside a quoted multi-line list.
    const bad = [
      (id: string) => `${id},Name, with comma,B,serum,GB,,,,"Aqua, Glycerin",,,`,
      (id: string) => `${good(id)},`,
      (id: string) => `${id},Name,B,serum,GB`,
      (id: string) => `${id},Name,B,serum,GB,,,,"Aqua,\nGlycerin"`,
    ];
    const rows: string[] = [];
    const rejectedLines: number[] = [];
    let line = 2;
    for (let i = 0; i < 12; i++) {
      const make = i % 3 === 1 ? bad[(i - 1) / 3]! : good;
      const row = make(`cr-${i}`);
      if (make !== good) rejectedLines.push(line);
      rows.push(row);
      line += row.split('\n').length;
    }
    await importFile(jsonl('cr-base.jsonl', [real('cr-1'), real('cr-keep')]));
    const result = await importFile(write('columns.csv', [header, ...rows].join('\n')), '--replace');
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^8 products imported/);
    assert.deepEqual(
      result.stderr
        .split('\n')
        .filter((l) => l.startsWith('rejected line'))
        .map((l) => Number(/\d+/.exec(l)![0])),
      rejectedLines,
    );
    assert.match(
      result.stderr,
      new RegExp(`rejected line ${rejectedLines[0]}: 13 fields where the header has 12`),
    );
    assert.match(
      result.stderr,
      new RegExp(`rejected line ${rejectedLines[2]}: 5 fields where the header has 12`),
    );
    // The shifted rows say nothing reliable about their products, so a full import withdraws nothing.
    assert.match(result.stderr, /nothing withdrawn: some rejected lines name no product_id/);
    assert.ok((await ids()).includes('cr-keep'));
    assert.deepEqual(
      (await ids("product_id like 'cr-%' and product_id <> 'cr-keep'")).sort(),
      ['cr-0', 'cr-1', 'cr-11', 'cr-2', 'cr-3', 'cr-5', 'cr-6', 'cr-8', 'cr-9'].sort(),
    );
  });

  it('CSV header names match ignoring case; a header without product_id or name is one clear rejection', async () => {
    const fields = [
      'product_id',
      'name',
      'brand',
      'product_type',
      'country',
      'ingredients',
      'skin_types',
      'vegan',
    ];
    const spellings = [
      (f: string) => f.toUpperCase(),
      (f: string) => f.replace(/(^|_)(\w)/g, (_, sep: string, c: string) => sep + c.toUpperCase()),
      (f: string) => ` ${f} `,
    ];
    for (const [i, spell] of spellings.entries()) {
      const id = `hc-${i}`;
      const file = write(
        `header-${i}.csv`,
        `${fields.map(spell).join(',')}\n${id},Name,Brand,serum,GB,"Aqua, Glycerin",oily,true\n`,
      );
      const result = await importFile(file);
      assert.equal(result.code, 0, result.stderr);
      await untilCore(id, true);
      const { product } = await catalog.getProduct({ productId: id });
      assert.deepEqual(
        [product?.brand, product?.productType, product?.skinTypes, product?.attributes?.vegan],
        ['Brand', 'serum', ['oily'], true],
        spell('product_id'),
      );
    }
    for (const missing of ['product_id', 'name']) {
      const header = fields.filter((f) => f !== missing);
      const file = write(`no-${missing}.csv`, `${header.join(',')}\n${header.map(() => 'x').join(',')}\n`);
      const result = await importFile(file);
      assert.equal(result.code, 1);
      assert.deepEqual(
        result.stderr.split('\n').filter((l) => l.startsWith('rejected line')),
        [`rejected line 1: the header has no ${missing} column (it has: ${header.join(', ')})`],
      );
    }
  });

  it('URLs with characters a URI cannot hold are stored percent-encoded; valid ones exactly as given', async () => {
    const urls = {
      'https://shop.example/img/crème 1.jpg': 'https://shop.example/img/cr%C3%A8me%201.jpg',
      'https://bücher.example/p?q=a b': 'https://xn--bcher-kva.example/p?q=a%20b',
      'https://shop.example/p/"x"|y': 'https://shop.example/p/%22x%22%7Cy',
      'https://Shop.example/A.JPG?x=1&y=2#top': 'https://Shop.example/A.JPG?x=1&y=2#top',
    };
    const fields = ['image_url', 'product_url', 'buy_url'] as const;
    const records = Object.keys(urls).flatMap((url, i) =>
      fields.map((field) => ({ ...real(`url-${i}-${field}`), [field]: url })),
    );
    assert.equal((await importFile(jsonl('urls.jsonl', records))).code, 0);
    for (const [i, expected] of Object.values(urls).entries()) {
      for (const field of fields) {
        const id = `url-${i}-${field}`;
        await untilCore(id, true);
        const { product } = await catalog.getProduct({ productId: id });
        const camel = { image_url: 'imageUrl', product_url: 'productUrl', buy_url: 'buyUrl' } as const;
        assert.equal(product?.[camel[field]], expected, `${id}`);
      }
    }
  });

  it('markup in display text is stored decoded, tags dropped, and the brand filter finds it', async () => {
    const cases: [Partial<Record<'name' | 'brand' | 'product_type' | 'country', string>>, object][] = [
      [
        { name: 'Crème &amp; Soin', brand: 'L&#39;Or&eacute;al' },
        { name: 'Crème & Soin', brand: "L'Oréal" },
      ],
      [
        { name: '<p>Hydra <b>Boost</b><br/>Gel</p>', brand: 'Caf&#xE9; &lt;b&gt;Lab&lt;/b&gt;' },
        { name: 'Hydra Boost Gel', brand: 'Café Lab' },
      ],
      [
        { name: 'Tom &amp;amp; Jerry&nbsp;Balm', product_type: 'Eye&nbsp;Care', country: 'Cura&ccedil;ao' },
        { name: 'Tom &amp; Jerry Balm', productType: 'Eye Care', country: 'Curaçao' },
      ],
      [{ name: 'Plain < 5 ml & more' }, { name: 'Plain < 5 ml & more' }],
    ];
    const records = cases.map(([fields], i) => ({ ...real(`markup-${i}`), ...fields }));
    assert.equal((await importFile(jsonl('markup.jsonl', records))).code, 0);
    for (const [i, [, expected]] of cases.entries()) {
      await untilCore(`markup-${i}`, true);
      const { product } = await catalog.getProduct({ productId: `markup-${i}` });
      for (const [field, value] of Object.entries(expected)) {
        assert.equal(product?.[field as 'name'], value, `markup-${i} ${field}`);
      }
    }
    const stored = await stack.orm.em
      .getConnection()
      .execute(`select name, brand from products where product_id = 'markup-0'`);
    assert.deepEqual(stored, [{ name: 'Crème & Soin', brand: "L'Oréal" }]);
    const brand = await catalog.searchProducts({ filter: { brand: "L'Oréal" } });
    assert.deepEqual(
      brand.products.map((p) => p.productId),
      ['markup-0'],
    );
  });

  it('demo products never mix with real ones', async () => {
    const demo = await loadDemoCatalog(stack.orm.em.fork());
    assert.equal(demo.skipped, null);
    assert.equal(demo.loaded, 320);

    // A real import removes the demo catalog.
    const first = await importFile(jsonl('first-real.jsonl', [real('z-1')]));
    assert.equal(first.code, 0);
    assert.match(first.stdout, /320 demo products removed/);
    assert.deepEqual(await ids(), ['z-1']);

    // Demo data is never loaded next to real products, at start or by an import.
    assert.deepEqual(await loadDemoCatalog(stack.orm.em.fork()), {
      loaded: 0,
      skipped: 'the catalog is not empty',
    });
    const demoFile = await importFile(jsonl('demo.jsonl', [{ ...real('d-1'), demo: true }]));
    assert.equal(demoFile.code, 1);
    assert.match(demoFile.stderr, /rejected line 1: the catalog holds real products/);
    const mixed = await importFile(jsonl('mixed.jsonl', [real('z-2'), { ...real('d-2'), demo: true }]));
    assert.match(mixed.stderr, /rejected line 2: demo record in a file of real products/);
    assert.deepEqual(await ids('demo'), []);
    assert.deepEqual(await ids(), ['z-1', 'z-2']);
  });

  it('the demo catalog loads only when asked: npm start asks for its embedded database', () => {
    assert.equal(loadConfig({ DATA_DIR: dir }).loadSampleCatalog, false);
    assert.equal(loadConfig({ DATA_DIR: dir, LOAD_SAMPLE_CATALOG: 'true' }).loadSampleCatalog, true);
  });
});
