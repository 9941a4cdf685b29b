import assert from 'node:assert/strict';
import { pino } from 'pino';
import { importRecords } from '../../services/catalog/catalog-import.ts';
import { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase } from '../support/database.ts';

/** Every character COPY's text format escapes, quotes, non-ASCII text and nulls: none may change on the way. */
const awkward: RawProduct = {
  product_id: 'awkward\\1',
  name: 'Crème "riche"\twith a tab\\and a backslash',
  brand: 'Ünïcödé ✓ 化粧品',
  product_type: 'moisturiser',
  country: null,
  image_url: 'https://example.test/a b.png?x=1&y="2"',
  product_url: null,
  buy_url: null,
  ingredients: 'Aqua,\r\nGlycerin, Niacinamide\\ (5%), "Phenoxyethanol"',
  skin_types: ['dry', 'normal'],
  vegan: true,
  cruelty_free: null,
};
const plain: RawProduct = {
  ...awkward,
  product_id: 'plain-2',
  name: 'Plain',
  ingredients: null,
  skin_types: null,
  vegan: false,
};

const COLUMNS = `product_id, name, brand, product_type, country, image_url, product_url, buy_url,
  ingredients_text as ingredients, declared_skin_types as skin_types, vegan, cruelty_free, demo`;

describe('catalog storage', () => {
  let orm: Orm;
  let drop: () => Promise<void>;

  beforeEach(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    orm = await openDatabase(db.url);
  });
  afterEach(async () => {
    await orm.close();
    await drop();
  });

  const loaded = async () => {
    const live = new LiveCatalog(orm, pino({ level: 'silent' }));
    await live.reload();
    return live.index;
  };

  it('a product round-trips exactly through import and catalog load, as new and as an update', async () => {
    await migrate(orm);
    const records = [awkward, plain].map((product, i) => ({ product, line: i + 1 }));
    for (const round of ['new', 'update']) {
      const report = await importRecords(orm.em.fork(), records);
      assert.equal(report.imported, 2, round);
      const index = await loaded();
      for (const raw of [awkward, plain]) {
        assert.deepEqual(
          index.get(raw.product_id)?.product,
          deriveProduct(raw),
          `${round} ${raw.product_id}`,
        );
      }
      const rows = await orm.em
        .getConnection()
        .execute(`select ${COLUMNS} from products order by product_id`);
      assert.deepEqual(rows, [
        { ...awkward, demo: false },
        { ...plain, demo: false },
      ]);
    }
  });

  it('concurrent imports of the same products in different orders both complete, never deadlocked', async () => {
    await migrate(orm);
    const products = Array.from({ length: 6000 }, (_, i) => ({
      ...plain,
      product_id: `c-${String(i).padStart(5, '0')}`,
      ingredients: 'Aqua, Glycerin, Niacinamide',
    }));
    const lines = (list: readonly RawProduct[]) => list.map((product, i) => ({ product, line: i + 1 }));
    // One file in catalog order, the other as another export lists it: reversed, and shuffled by a fixed step.
    const orders = [products, [...products].reverse(), products.map((_, i) => products[(i * 7919) % 6000]!)];
    for (let round = 0; round < 3; round++) {
      const [first, second] = [orders[round % 3]!, orders[(round + 1) % 3]!];
      const renamed = second.map((product) => ({ ...product, name: `Round ${round}` }));
      const reports = await Promise.all([
        importRecords(orm.em.fork(), lines(first)),
        importRecords(orm.em.fork(), lines(renamed)),
      ]);
      assert.deepEqual(
        reports.map((report) => report.imported),
        [6000, 6000],
        `round ${round}`,
      );
    }
    const rows = await orm.em.getConnection().execute('select count(*)::int as n from products');
    assert.equal(rows[0]!.n, 6000);
  });

  it('migration 0013 keeps the derived documents the catalog held as jsonb', async () => {
    await orm.migrator.up({ to: '0012b-scan-purge-index' });
    const before = deriveProduct(awkward);
    await orm.em
      .getConnection()
      .execute(
        `insert into products (product_id, name, derived, updated_at) values (?, ?, ?::jsonb, now())`,
        [awkward.product_id, awkward.name, JSON.stringify(before)],
      );
    await migrate(orm);
    const [column] = await orm.em
      .getConnection()
      .execute(
        `select data_type from information_schema.columns where table_name = 'products' and column_name = 'derived'`,
      );
    assert.equal(column?.data_type, 'json');
    assert.deepEqual((await loaded()).get(awkward.product_id)?.product, before);
  });
});
