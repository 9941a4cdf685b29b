/**
 * CSV as spreadsheets and shops export it, control characters, and links: a bad row is rejected on its own
 * line, a file that cannot be read is refused (exit 2), and nothing from the file reaches the terminal raw.
 */
import assert from 'node:assert/strict';
import { importHarness, real } from '../support/catalog-import.ts';

const HEADER =
  'product_id,name,brand,product_type,country,image_url,product_url,buy_url,ingredients,skin_types,vegan,cruelty_free';
/** Any C0 or C1 control or bidi control: none may reach the operator's terminal. */
const RAW_CONTROL = /(?!\n)[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

describe('catalog import: export shapes, controls and links', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  const h = importHarness('catalog-shapes');
  const { importFile, write, jsonl, ids } = h;
  const column = async (id: string, name: string) =>
    (
      (await h.stack.orm.em
        .getConnection()
        .execute(`select ${name} as v from products where product_id = ?`, [id])) as { v: unknown }[]
    )[0]?.v;

  it('quotes inside fields, Excel’s ="00123", a sep= line and blank lines before the header are read', async () => {
    const rows = [
      'q-1,Good Cream,B,moisturizer,GB,,,,"Aqua, Glycerin",,,',
      'q-2,Brush 5" Wide,B,tool,GB,,,,Aqua,,,',
      'q-3,Pure "Aqua" Mist,B,toner,GB,,,,Aqua,,,',
      '="00123",Excel Text,B,serum,GB,,,,Aqua,,,',
    ];
    const comma = await importFile(write('quotes.csv', [HEADER, ...rows].join('\n')));
    assert.equal(comma.code, 0, comma.stderr);
    assert.deepEqual(await ids(), ['00123', 'q-1', 'q-2', 'q-3']);
    assert.equal(await column('q-2', 'name'), 'Brush 5" Wide');
    assert.equal(await column('q-3', 'name'), 'Pure "Aqua" Mist');
    const semicolons = `${HEADER.replaceAll(',', ';')}\r\nsh-1;Sep Hint;B;serum;DE;;;;"Aqua, Glycerin";;;\r\n`;
    for (const [file, text] of [
      ['sep.csv', `sep=;\r\n${semicolons}`],
      ['blank-first.csv', `\r\n  \r\n${semicolons.replace('sh-1', 'bf-1')}`],
    ] as const) {
      const result = await importFile(write(file, text));
      assert.equal(result.code, 0, `${file}: ${result.stderr}`);
    }
    assert.equal(await column('sh-1', 'ingredients_text'), 'Aqua, Glycerin');
    assert.equal(await column('bf-1', 'country'), 'DE');
  });

  it('a quote that breaks a row rejects that row on its line; one never closed refuses the file (exit 2)', async () => {
    const broken = [
      HEADER,
      'u-1,One,B,serum,GB,,,,"Aqua, Glycerin,,,',
      'u-2,Two,B,serum,GB,,,,"Aqua",,,',
      'u-3,Three,B,serum,GB,,,,Aqua,,,',
    ];
    const result = await importFile(write('unclosed.csv', broken.join('\n')));
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(
      result.stderr.split('\n').filter((l) => l.startsWith('rejected')),
      [
        'rejected line 2: a quoted field is followed by more text before the next separator (a quote that is not the field’s end?) (the row runs to line 3)',
      ],
    );
    assert.deepEqual(await ids(), ['u-3']);
    const never = await importFile(
      write(
        'never.csv',
        [HEADER, 'v-1,One,B,serum,GB,,,,Aqua,,,', 'v-2,Two,B,serum,GB,,,,"Aqua, Glycerin'].join('\n'),
      ),
    );
    assert.equal(never.code, 2, never.stderr);
    assert.match(never.stderr, /the quote opened in the row on line 3 is never closed/);
    assert.deepEqual(await ids(), ['u-3']);
  });

  it('rows of empty cells are skipped, and a full import still withdraws', async () => {
    await importFile(jsonl('before.jsonl', [real('c-1'), real('c-gone')]));
    const text = [
      HEADER,
      'c-1,Comma Cream,B,moisturizer,GB,,,,"Aqua, Glycerin",,,',
      ',,,,,,,,,,,',
      ' , ,,,,,,,,,,',
    ].join('\r\n');
    const result = await importFile(write('commas.csv', `${text}\r\n`), '--replace');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /1 products withdrawn/);
    assert.deepEqual(await ids(), ['c-1']);
  });

  it('a spreadsheet’s empty columns past the data are ignored; an id in scientific notation is rejected', async () => {
    const text = [
      'product_id,name,brand,,,',
      'e-1,Empty Column Cream,B,,,',
      '00123,Short Row Gel,B',
      '3.60E+12,Barcode Serum,B,,,',
      '3.60E+12,Other Barcode Serum,B,,,',
    ].join('\r\n');
    const result = await importFile(write('phantom.csv', `${text}\r\n`), '--replace');
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^2 products imported/m);
    const why =
      'product_id "3.60E+12" is a number a spreadsheet wrote in scientific notation, its digits lost (two barcodes would be one product): format the column as text and export the file again';
    assert.deepEqual(
      result.stderr.split('\n').filter((line) => line.startsWith('rejected') || line.startsWith('nothing')),
      [
        'nothing withdrawn: some rejected lines name no product_id, so the file cannot say which products it holds',
        `rejected line 4: ${why}`,
        `rejected line 5: ${why}`,
      ],
    );
    assert.deepEqual(await ids(), ['00123', 'e-1']);
    // A column without a name that holds a value is still refused, as any column no field answers to.
    const named = await importFile(write('unnamed.csv', 'product_id,name,\r\ne-2,Gel,x\r\n'));
    assert.equal(named.code, 2, named.stderr);
    assert.match(named.stderr, /the header \(line 1\) has a column no catalog field answers to: ""\./);
  });

  it('control and bidi characters: rejected in ids, dropped from text, escaped in every message', async () => {
    const file = jsonl('controls.jsonl', [
      { product_id: 'e-1\u001b[31mRED\u001b]0;pwned\u0007', name: 'Bad Id', ingredients: 'Aqua' },
      {
        product_id: 'e-2',
        name: 'Esc \u001b[2J Name',
        brand: 'B\u0085\u009b31m',
        ingredients: 'Aqua,\tGlycerin\u001b',
      },
      { product_id: 'e-3', name: 'Cream \u202egnp.exe\u202c', ingredients: 'Visit the \u001b[5mstore' },
    ]);
    const result = await importFile(file);
    assert.equal(result.code, 1, result.stderr);
    assert.doesNotMatch(result.stderr + result.stdout, RAW_CONTROL);
    assert.match(result.stderr, /rejected line 1: product_id contains the control character U\+001B/);
    assert.match(result.stderr, /warning line 3 \(e-3\): ingredients are not an ingredient list/);
    assert.deepEqual(await ids(), ['e-2', 'e-3']);
    assert.equal(await column('e-2', 'name'), 'Esc [2J Name');
    assert.equal(await column('e-2', 'brand'), 'B31m');
    assert.equal(await column('e-2', 'ingredients_text'), 'Aqua,\tGlycerin');
    assert.equal(await column('e-3', 'name'), 'Cream gnp.exe');
    // A page's script or style element goes with its content.
    const html = jsonl('html.jsonl', [
      {
        product_id: 'h-1',
        name: '<script>alert(1)</script>Night Cream',
        brand: '<style>b{color:red}</style>Brand',
      },
    ]);
    assert.equal((await importFile(html)).code, 0);
    assert.deepEqual([await column('h-1', 'name'), await column('h-1', 'brand')], ['Night Cream', 'Brand']);
    // A header name is echoed escaped.
    const header = await importFile(write('esc-header.csv', 'id\u001b[41m,title\nx,y\n'));
    assert.equal(header.code, 2);
    assert.doesNotMatch(header.stderr, RAW_CONTROL);
    assert.match(header.stderr, /"id\\u001b\[41m"/);
  });

  it('links: //host is https, a link that is no absolute http(s) URL or carries a password is left empty with a warning', async () => {
    const rows = [
      'url-1,Proto Rel,B,serum,GB,//cdn.shop.example/x.jpg,,,Aqua,,,',
      'url-2,No Scheme,B,serum,GB,,www.brand.example/p/1,,Aqua,,,',
      'url-3,Relative,B,serum,GB,/images/x.jpg,,,Aqua,,,',
      'url-4,Creds,B,serum,GB,https://user:secret@cdn.example/x.jpg,,,Aqua,,,',
      'url-5,Js,B,serum,GB,,,javascript:alert(1),Aqua,,,',
    ];
    const result = await importFile(write('urls.csv', [HEADER, ...rows].join('\n')));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^5 products imported/);
    assert.deepEqual(
      result.stderr.split('\n').filter((l) => l.startsWith('warning')),
      [
        'warning line 3 (url-2): product_url "www.brand.example/p/1" is not an absolute http(s) URL (https://…): stored empty',
        'warning line 4 (url-3): image_url "/images/x.jpg" is not an absolute http(s) URL (https://…): stored empty',
        'warning line 5 (url-4): image_url carries a user name or password, which every reader would see: stored empty',
        'warning line 6 (url-5): buy_url "javascript:alert(1)" is not an absolute http(s) URL (https://…): stored empty',
      ],
    );
    assert.doesNotMatch(result.stderr, /secret/);
    assert.equal(await column('url-1', 'image_url'), 'https://cdn.shop.example/x.jpg');
    for (const id of ['url-2', 'url-3', 'url-4', 'url-5']) {
      assert.deepEqual(
        [await column(id, 'image_url'), await column(id, 'product_url'), await column(id, 'buy_url')],
        [null, null, null],
        id,
      );
    }
  });
});
