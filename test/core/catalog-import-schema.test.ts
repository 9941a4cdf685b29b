/**
 * A catalog file's columns are its schema: how the import reads header names and JSON keys as exports write
 * them, what it refuses, and that a column the file leaves out never empties a stored product.
 */
import assert from 'node:assert/strict';
import { importHarness } from '../support/catalog-import.ts';

const HEADER =
  'product_id,name,brand,product_type,country,image_url,product_url,buy_url,ingredients,skin_types,vegan,cruelty_free';

describe('catalog import: the file’s columns', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  const h = importHarness('catalog-schema');
  const { importFile, write, ids } = h;
  const row = async (id: string) =>
    (
      await h.stack.orm.em.getConnection().execute(
        `select name, brand, country, ingredients_text, declared_skin_types, vegan, cruelty_free,
             derived->'attributes'->>'fragrance_free' as fragrance_free
           from products where product_id = ?`,
        [id],
      )
    )[0] as Record<string, unknown>;

  it('a column the file leaves out keeps the stored value; export aliases are read; an unknown column refuses the file', async () => {
    const full = write(
      'full.csv',
      `${HEADER}\ns-1,Good Cream,B,moisturizer,KR,,,,"Aqua, Glycerin, Parfum",dry,true,true\n`,
    );
    assert.equal((await importFile(full)).code, 0);
    // A shop's export: other names for the fields, and no country, type or cruelty_free column.
    const shop = write(
      'shop.csv',
      'Product ID,Product Name,Brand,Ingredients (INCI),Skin Type,Vegan?\ns-1,Good Cream 2,B,"Aqua, Glycerin",Oily,no\n',
    );
    const result = await importFile(shop);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await row('s-1'), {
      name: 'Good Cream 2',
      brand: 'B',
      country: 'KR',
      ingredients_text: 'Aqua, Glycerin',
      declared_skin_types: ['Oily'],
      vegan: false,
      cruelty_free: true,
      fragrance_free: 'true',
    });
    // The same in JSON Lines: a key in any case, a record without ingredients keeps the stored list.
    const jsonl = write(
      'keys.jsonl',
      '{"Product_ID":"s-1","Name":"Good Cream 3","INCI":null}\n{"product_id":"s-1b","name":"New"}\n',
    );
    assert.equal((await importFile(jsonl)).code, 0);
    assert.deepEqual(
      [(await row('s-1')).name, (await row('s-1')).ingredients_text, (await row('s-1')).country],
      ['Good Cream 3', null, 'KR'],
    );
    const onlyName = write('only-name.jsonl', '{"product_id":"s-1","name":"Good Cream 4"}\n');
    await importFile(
      write('back.csv', `${HEADER}\ns-1,Good Cream,B,moisturizer,KR,,,,"Aqua, Parfum",dry,true,true\n`),
    );
    assert.equal((await importFile(onlyName)).code, 0);
    assert.deepEqual(
      [(await row('s-1')).ingredients_text, (await row('s-1')).country, (await row('s-1')).fragrance_free],
      ['Aqua, Parfum', 'KR', 'false'],
    );
    // A new product from such a file has the field empty.
    assert.equal((await row('s-1b')).ingredients_text, null);

    // A column no field answers to: nothing is imported, and the message names it and the fields.
    for (const [file, text, named] of [
      ['colour.csv', 'product_id,name,Colour\ns-1,Renamed,red\n', '"Colour"'],
      [
        'typo.jsonl',
        '{"product_id":"s-1","name":"Renamed"}\n{"product_id":"s-2","name":"X","ingredients_list":"Aqua"}\n',
        '"ingredients_list"',
      ],
    ] as const) {
      const refused = await importFile(write(file, text));
      assert.equal(refused.code, 2, refused.stderr);
      assert.ok(refused.stderr.includes(named), refused.stderr);
      assert.match(refused.stderr, /The fields are product_id, name, brand, .*demo/);
      assert.equal(refused.stdout, '');
    }
    assert.equal((await row('s-1')).name, 'Good Cream 4');
    assert.deepEqual(await ids(), ['s-1', 's-1b']);
  });

  it('two columns for one field (any case or spelling) refuse the file, naming both', async () => {
    for (const [file, header, named] of [
      ['two-names.csv', 'product_id,name,brand,NAME', '"name" and "NAME" (both name)'],
      ['inci-twice.csv', 'product_id,name,INCI,Ingredients', '"INCI" and "Ingredients" (both ingredients)'],
    ] as const) {
      const result = await importFile(write(file, `${header}\nd-1,Real Name,B,\n`));
      assert.equal(result.code, 2, result.stderr);
      assert.equal(
        result.stderr,
        `cannot read ${h.dir}/${file}: the header (line 1) names a field twice: ${named}\n`,
      );
    }
    assert.deepEqual(await ids(), []);
  });

  it('.json holds one array of records, pretty-printed or not; anything else is refused whole', async () => {
    const record = (id: string) => ({ product_id: id, name: `Name ${id}`, ingredients: 'Aqua, Glycerin' });
    const pretty = write(
      'pretty.json',
      JSON.stringify([record('j-1'), { ...record('j-2'), name: '' }, record('j-3')], null, 2),
    );
    const result = await importFile(pretty);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^2 products imported/);
    // The rejected element is named by the line it starts on.
    assert.equal(
      result.stderr
        .split('\n')
        .filter((l) => l.startsWith('rejected'))
        .join('|'),
      'rejected line 7: name is required',
    );
    const oneLine = await importFile(write('one-line.json', JSON.stringify([record('j-4')])));
    assert.equal(oneLine.code, 0, oneLine.stderr);
    assert.deepEqual(await ids(), ['j-1', 'j-3', 'j-4']);
    const wrapped = await importFile(
      write('wrapped.json', JSON.stringify({ products: [record('j-5')] }, null, 2)),
    );
    assert.equal(wrapped.code, 2);
    assert.match(wrapped.stderr, /the record on line 1 has a column no catalog field answers to: "products"/);
    const broken = await importFile(write('broken.json', '[\n{"product_id": "j-6", "name": "x"},\n'));
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /not valid JSON/);
  });

  it('Excel "Unicode text" (.txt, UTF-16 LE, tabs) and .tsv import', async () => {
    const text = 'product_id\tname\tbrand\tingredients\r\nt-1\tCrème\tB\tAqua, Glycerin\r\n';
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    for (const [file, body] of [
      ['unicode.txt', utf16],
      ['sheet.tsv', text.replace('t-1', 't-2')],
    ] as const) {
      const result = await importFile(write(file, body));
      assert.equal(result.code, 0, result.stderr);
    }
    assert.deepEqual(await ids(), ['t-1', 't-2']);
    assert.equal((await row('t-1')).name, 'Crème');
  });

  it('UTF-16 without its mark (either byte order) and JSON Lines with lone CR line ends import', async () => {
    const text = 'product_id\tname\tbrand\tingredients\r\nu-1\tCrème\tB\tAqua, Glycerin\r\n';
    const big = Buffer.from(text.replace('u-1', 'u-2'), 'utf16le').swap16();
    for (const [file, body] of [
      ['no-mark.txt', Buffer.from(text, 'utf16le')],
      ['no-mark-be.txt', big],
    ] as const) {
      const result = await importFile(write(file, body));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^1 products imported/m);
    }
    // Old Mac tools end lines with CR alone: each line is one record, and a bad one is named by its line.
    const records = [
      '{"product_id":"u-3","name":"Gel"}',
      '{"product_id":"u-4",',
      '{"product_id":"u-5","name":"Oil"}',
    ];
    const cr = await importFile(write('mac.jsonl', `${records.join('\r')}\r`));
    assert.equal(cr.code, 1, cr.stderr);
    assert.match(cr.stdout, /^2 products imported/m);
    assert.match(cr.stderr, /^rejected line 2: not valid JSON$/m);
    assert.deepEqual(await ids(), ['u-1', 'u-2', 'u-3', 'u-5']);
    assert.equal((await row('u-1')).name, 'Crème');
  });

  it('one coercion table for CSV and JSON: numeric ids and names, yes/no words, a skin-type text', async () => {
    const jsonl = write(
      'types.jsonl',
      [
        '{"product_id": 123456, "name": 12345, "ingredients": "Aqua"}',
        '{"product_id": "n-2", "name": "Str", "vegan": "yes", "cruelty_free": 0, "skin_types": "oily, dry"}',
        '{"product_id": "n-3", "name": "Maybe", "vegan": "maybe"}',
        '{"product_id": 1.5e300, "name": "Huge"}',
        '{"product_id": "n-5", "name": {"en": "Object"}}',
      ].join('\n'),
    );
    const result = await importFile(jsonl);
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(
      result.stderr.split('\n').filter((l) => l.startsWith('rejected')),
      [
        'rejected line 3: vegan must be true/false, yes/no, y/n, 1/0, oui/non, ja/nein, sí/no, or empty (got the text "maybe")',
        'rejected line 4: product_id must be text or a whole number (got the number "1.5e+300")',
        'rejected line 5: name must be text (got an object)',
      ],
    );
    assert.equal((await row('123456')).name, '12345');
    assert.deepEqual(
      [(await row('n-2')).vegan, (await row('n-2')).cruelty_free, (await row('n-2')).declared_skin_types],
      [true, false, ['oily, dry']],
    );
    const csv = write(
      'bools.csv',
      `${HEADER}\nb-1,Y Vegan,B,serum,GB,,,,Aqua,,Y,N\nb-2,Oui,B,serum,GB,,,,Aqua,,Oui,Non\n`,
    );
    assert.equal((await importFile(csv)).code, 0);
    assert.deepEqual(
      [
        (await row('b-1')).vegan,
        (await row('b-1')).cruelty_free,
        (await row('b-2')).vegan,
        (await row('b-2')).cruelty_free,
      ],
      [true, false, true, false],
    );
  });
});
