import assert from 'node:assert/strict';
import { loadDemoCatalog } from '../../services/catalog/demo-catalog.ts';
import { loadConfig } from '../../services/shared/config.ts';
import { importHarness, real } from '../support/catalog-import.ts';

describe('catalog import of retailer data', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  const h = importHarness('catalog-retailer');
  const { importFile, write, jsonl, derived, ids, untilCore } = h;

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
    // A link that is not an http(s) URL is an optional field left empty, with a warning: the product imports.
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /6 products imported/);
    assert.match(
      result.stderr,
      /warning line 9 \(r-badurl\): image_url "ftp:\/\/x" is not an absolute http\(s\) URL/,
    );
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

  it('warns of claims the list contradicts and of lists it cannot vouch for, naming product and ingredient', async () => {
    const file = jsonl('claims.jsonl', [
      { ...real('c-vegan', 'Aqua, Carmine (CI 75470), Lanolin, Beeswax, Niacinamide'), vegan: true },
      { ...real('c-name', 'Aqua, Glycerin, Parfum'), name: 'Fragrance-Free Calming Cream' },
      real('c-glued', 'Aqua+Glycerin+Alcohol Denat.+Parfum+Niacinamide'),
    ]);
    const result = await importFile(file);
    assert.equal(result.code, 0, result.stderr);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning'));
    assert.deepEqual(warnings, [
      'warning line 1 (c-vegan): vegan: true is contradicted by its ingredients: Carmine (CI 75470), Lanolin, Beeswax (animal-derived): imported as vegan false',
      'warning line 2 (c-name): the name says fragrance-free ("Fragrance-Free"), but its ingredients list Parfum: fragrance_free false',
      'warning line 3 (c-glued): ingredients: fragrance_free unknown: the list names "Parfum" outside the entries read; alcohol_free unknown: the list names "Alcohol Denat" outside the entries read',
    ]);
    assert.equal((await derived('c-vegan')).attributes.vegan, false);
    const glued = (await derived('c-glued')).attributes;
    assert.deepEqual([glued.fragrance_free, glued.alcohol_free], [null, null]);
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

  it('--replace withdraws more than half the catalog only with --force', async () => {
    await importFile(
      jsonl(
        'four.jsonl',
        ['f-1', 'f-2', 'f-3', 'f-4'].map((id) => real(id)),
      ),
    );
    const cut = jsonl('cut.jsonl', [real('f-1')]);
    const refused = await importFile(cut, '--replace');
    assert.equal(refused.code, 0, refused.stderr);
    assert.equal(
      refused.stderr
        .split('\n')
        .filter((l) => l.startsWith('nothing withdrawn'))
        .join(''),
      'nothing withdrawn: it would withdraw 3 of the 4 products in the catalog, more than half: check the file is the whole catalog, and run the import again with --force to withdraw them',
    );
    assert.deepEqual(await ids(), ['f-1', 'f-2', 'f-3', 'f-4']);
    const usage = await importFile(cut, '--force');
    assert.equal(usage.code, 2);
    const forced = await importFile(cut, '--replace', '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /3 products withdrawn/);
    assert.deepEqual(await ids(), ['f-1']);
  });

  it('--replace keeps products whose line was rejected, and withdraws nothing if a line names no product', async () => {
    await importFile(jsonl('base.jsonl', [real('y-1'), real('y-2'), real('y-3')]));
    const kept = await importFile(
      jsonl('bad-flag.jsonl', [real('y-1'), { ...real('y-2'), vegan: 'maybe' }]),
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

  it('demo products never mix with real ones', async () => {
    const demo = await loadDemoCatalog(h.stack.orm.em.fork());
    assert.equal(demo.skipped, null);
    assert.equal(demo.loaded, 320);

    // A real import removes the demo catalog.
    const first = await importFile(jsonl('first-real.jsonl', [real('z-1')]));
    assert.equal(first.code, 0);
    assert.match(first.stdout, /320 demo products removed/);
    assert.deepEqual(await ids(), ['z-1']);

    // Demo data is never loaded next to real products, at start or by an import.
    assert.deepEqual(await loadDemoCatalog(h.stack.orm.em.fork()), {
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
    assert.equal(loadConfig({ DATA_DIR: h.dir }).loadSampleCatalog, false);
    assert.equal(loadConfig({ DATA_DIR: h.dir, LOAD_SAMPLE_CATALOG: 'true' }).loadSampleCatalog, true);
  });
});
