/** How the import reads retailers' fields: characters, CSV shape, header names, URLs and markup. */
import assert from 'node:assert/strict';
import { importHarness, real } from '../support/catalog-import.ts';

describe('catalog import of retailer fields', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  const h = importHarness('catalog-fields');
  const { importFile, write, jsonl, ids, untilCore } = h;
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

  it('CSV header names match ignoring case; a header without product_id or name refuses the file (exit 2)', async () => {
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
      const { product } = await h.catalog.getProduct({ productId: id });
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
      assert.equal(result.code, 2);
      assert.equal(
        result.stderr,
        `cannot read ${file}: the header (line 1) has no ${missing} column (it has: ${header.map((f) => `"${f}"`).join(', ')})\n`,
      );
    }
  });

  it("a spreadsheet's semicolon- or tab-separated CSV is read by its header; unquoted commas stay in their field", async () => {
    const header = ['product_id', 'name', 'brand', 'ingredients', 'skin_types'];
    // A spreadsheet quotes only fields holding its own separator: here skin_types, not the ingredient list.
    const semicolons = `${header.join(';')}\r\nsc-1;Crème Riche;Maison;Aqua, Glycerin, Niacinamide;"oily;combination"\r\n`;
    const tabs = `${header.join('\t')}\ntb-1;x\tGel Crème\tMaison\tAqua, Glycerin, Niacinamide\tdry\n`;
    for (const [file, text, id, name, types] of [
      ['semicolons.csv', semicolons, 'sc-1', 'Crème Riche', ['oily', 'combination']],
      ['tabs.csv', tabs, 'tb-1;x', 'Gel Crème', ['dry']],
    ] as const) {
      const result = await importFile(write(file, text));
      assert.equal(result.code, 0, result.stderr);
      await untilCore(id, true);
      const { product } = await h.catalog.getProduct({ productId: id });
      assert.deepEqual(
        [product?.name, product?.brand, (await h.derived(id)).ingredients, product?.skinTypes],
        [name, 'Maison', 'Aqua, Glycerin, Niacinamide', types],
        file,
      );
    }
  });

  it('a file in a legacy encoding is refused whole, naming its first line that is not UTF-8; UTF-16 and BOMs are read', async () => {
    const text = 'product_id,name,brand\nen-1,Gel Hydratant,Maison\nen-2,Crème Riche,Maison\n';
    // Windows-1252 (a spreadsheet's plain "CSV" in Western Europe): è is one byte, not UTF-8.
    const legacy = await importFile(write('legacy.csv', Buffer.from(text, 'latin1')));
    assert.equal(legacy.code, 2);
    assert.match(legacy.stderr, /line 3 is not UTF-8 text .*save it as UTF-8/);
    assert.deepEqual(await ids(), []);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(real('en-3')))]);
    for (const file of [write('unicode.csv', utf16), write('bom.jsonl', bom)]) {
      const result = await importFile(file);
      assert.equal(result.code, 0, result.stderr);
    }
    assert.deepEqual(await ids(), ['en-1', 'en-2', 'en-3']);
    assert.equal((await h.derived('en-2')).name, 'Crème Riche');
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
        const { product } = await h.catalog.getProduct({ productId: id });
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
      const { product } = await h.catalog.getProduct({ productId: `markup-${i}` });
      for (const [field, value] of Object.entries(expected)) {
        assert.equal(product?.[field as 'name'], value, `markup-${i} ${field}`);
      }
    }
    const stored = await h.stack.orm.em
      .getConnection()
      .execute(`select name, brand from products where product_id = 'markup-0'`);
    assert.deepEqual(stored, [{ name: 'Crème & Soin', brand: "L'Oréal" }]);
    const brand = await h.catalog.searchProducts({ filter: { brand: "L'Oréal" } });
    assert.deepEqual(
      brand.products.map((p) => p.productId),
      ['markup-0'],
    );
  });
  it('invisible characters a feed leaves in a product_id are dropped: one product, updated by the next import', async () => {
    // Zero-width space (spreadsheet copies), word joiner, soft hyphen, byte-order mark, direction mark.
    const records = [
      real('sku-1\u200b'),
      real('\u2060sku-2'),
      real('sk\u00adu-3'),
      real('\ufeffsku-4\u200e'),
      { ...real('sku-1'), name: 'Second listing' },
    ];
    const first = await importFile(jsonl('invisible.jsonl', records));
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /rejected line 5: duplicate product_id \(first on line 1\)/);
    assert.deepEqual(await ids(), ['sku-1', 'sku-2', 'sku-3', 'sku-4']);
    // The clean id of a later feed updates the same product rather than adding a copy of it.
    const again = await importFile(jsonl('clean.jsonl', [{ ...real('sku-2'), name: 'Renamed' }]));
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await ids(), ['sku-1', 'sku-2', 'sku-3', 'sku-4']);
    const stored = await h.stack.orm.em
      .getConnection()
      .execute(`select name from products where product_id = 'sku-2'`);
    assert.deepEqual(stored, [{ name: 'Renamed' }]);
  });
});
