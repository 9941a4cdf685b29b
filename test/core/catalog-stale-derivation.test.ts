/**
 * A catalog imported under an older knowledge base (catalog-store.ts, stale-derivation.ts): core serves its
 * products as this knowledge base derives them, not as the derivation stored with them, so a label shape
 * a later version reads right never keeps a product passing a free_from filter it should not, and
 * match_basis's knowledge version is true of every product served. Real PostgreSQL.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { LiveCatalog, upsertProducts } from '../../services/catalog/catalog-store.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { KB_VERSION } from '../../services/catalog/knowledge/knowledge.ts';
import { storedRecord } from '../../services/catalog/stale-derivation.ts';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import fixtures from '../fixtures/real-products.json' with { type: 'json' };
import { capturingLogger } from '../support/captured-log.ts';
import { createTestDatabase } from '../support/database.ts';
import { rawProduct } from '../support/raw-product.ts';

const TONER = 'Hamamelis Virginiana (Witch Hazel) Distillate (14% Alcohol), Niacinamide';

describe('a catalog stored with an older knowledge base', function () {
  this.timeout(120_000);
  let db: { url: string; drop: () => Promise<void> };
  let orm: Orm;
  let live: LiveCatalog | undefined;
  const { logger, lines } = capturingLogger<{ msg: string; stale_products?: Record<string, number> }>('info');

  before(async () => {
    db = await createTestDatabase();
    orm = await openDatabase(db.url);
    await migrate(orm);
  });
  after(async () => {
    live?.stop();
    await orm.close();
    await db.drop();
  });

  it('is served as this knowledge base derives it, and the load says so', async () => {
    await upsertProducts(orm.em.fork(), [
      rawProduct('toner', { ingredients: TONER, skin_types: ['oily', 'combination'] }),
      rawProduct('serum', { ingredients: 'Water, Niacinamide, Glycerin' }),
    ]);
    // The toner as knowledge 2026.11.10 stored it: the note's alcohol unread, alcohol_free true.
    const current = deriveProduct(
      rawProduct('toner', { ingredients: TONER, skin_types: ['oily', 'combination'] }),
    );
    assert.equal(current.attributes.alcohol_free, null);
    const old = {
      ...current,
      kb_version: '2026.11.10',
      attributes: { ...current.attributes, alcohol_free: true },
    };
    await orm.em
      .getConnection()
      .execute('update products set derived = ?::json where product_id = ?', [JSON.stringify(old), 'toner']);

    live = new LiveCatalog(orm, logger);
    await live.reload();

    const served = live.index.get('toner')!.product;
    assert.deepEqual(served, current);
    assert.equal(served.kb_version, KB_VERSION);
    const filter = create(ProductFilterSchema, { freeFrom: ['alcohol'] });
    const { best } = live.index.recommend([{ name: 'redness', severity: 0.6 }], null, filter, 5);
    assert.deepEqual(
      best.map((ranked) => ranked.entry.product.product_id),
      ['serum'],
    );
    const warned = lines.filter((line) => line.stale_products !== undefined);
    assert.equal(warned.length, 1);
    assert.deepEqual(warned[0]!.stale_products, { '2026.11.10': 1 });
  });

  it('a product derived again from what it stores is the product derived from its record', () => {
    const samples: RawProduct[] = readFileSync(
      new URL('../../data/sample-catalog.jsonl', import.meta.url),
      'utf8',
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const real = fixtures.products.map(({ name, product_type, ingredients }, i) =>
      rawProduct(`real-${i}`, {
        name,
        product_type,
        ingredients,
        skin_types: i % 2 ? ['Normal to Dry'] : null,
      }),
    );
    for (const raw of [...samples, ...real]) {
      const derived = deriveProduct(raw);
      assert.deepEqual(deriveProduct(storedRecord(derived)), derived, raw.product_id);
    }
  });
});
