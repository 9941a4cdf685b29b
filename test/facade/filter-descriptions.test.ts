/**
 * What recommend_products' and search_products' filter descriptions say, against what the filters do: an
 * agent reading only the tool list must not be misled. Real MCP SDK clients on /mcp and /mcp/account, a
 * real PostgreSQL, a catalog whose types are the retailers' words.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { rawProduct } from '../support/raw-product.ts';
import { readTool, twoEndpoints } from '../support/two-endpoints.ts';

const BHA = 'Aqua, Salicylic Acid, Niacinamide, Glycerin';
const PRODUCTS = [
  // Suits dry and oily skin, and holds a drying alcohol: a stated dry skin costs it the dry conflict.
  rawProduct('st-alcohol', { ingredients: `${BHA}, Alcohol Denat.`, skin_types: ['dry', 'oily'] }),
  // Declared for oily skin only.
  rawProduct('st-oily', { ingredients: BHA, skin_types: ['oily'] }),
  // Types as retailers write them, each one of the filter's kinds.
  rawProduct('rt-face-oil', { product_type: 'Face Oil', ingredients: 'Squalane, Niacinamide' }),
  rawProduct('rt-essence', { product_type: 'Essence', ingredients: BHA }),
  rawProduct('rt-mist', { product_type: 'Mist', ingredients: 'Aqua, Glycerin, Panthenol' }),
];

/** The sentences of a description. */
const sentences = (text: string) => text.split(/(?<=\.)\s+/);

describe('filter descriptions say what the filters do', () => {
  const ends = twoEndpoints('filter-descriptions', { products: PRODUCTS });

  const tool = async (client: Client, name: string) =>
    (await client.listTools()).tools.find((t) => t.name === name)!;
  const argument = async (client: Client, name: string, arg: string) =>
    ((await tool(client, name)).inputSchema.properties as any)[arg].description as string;

  /** recommend_products on a fresh completed scan: each product's score by product_id. */
  async function scores(filters: Record<string, unknown>) {
    const started = await readTool(ends.guest, 'start_skin_scan', { source: 'filter-descriptions' });
    await completeScan(ends.stack.orm, started.run_id, RED_ACNE_SCORES);
    const answer = await readTool(ends.guest, 'recommend_products', {
      run_id: started.run_id,
      access_token: started.access_token,
      ...filters,
    });
    return new Map<string, number>(answer.products.map((p: any) => [p.product_id, p.match_score]));
  }

  it('skin_type narrows and changes scores, as the description says; the other filters only narrow', async () => {
    const none = await scores({});
    const oily = await scores({ skin_type: 'oily' });
    const dry = await scores({ skin_type: 'dry' });
    // A product suited to the stated type and free of drying alcohol scores as with no skin_type.
    assert.equal(oily.get('st-alcohol'), none.get('st-alcohol'));
    assert.equal(oily.get('st-oily'), none.get('st-oily'));
    // Dry: the drying-alcohol product scores lower; the oily-only product is left out.
    assert.ok(dry.get('st-alcohol')! < none.get('st-alcohol')!, `${dry.get('st-alcohol')}`);
    assert.ok(!dry.has('st-oily'));

    const description = (await tool(ends.guest, 'recommend_products')).description!;
    const onlyNarrow = sentences(description).filter((s) => /never change a score/.test(s));
    assert.equal(onlyNarrow.length, 1, description);
    for (const name of ['product_type', 'free_from', 'vegan', 'cruelty_free', 'brand', 'country']) {
      assert.ok(onlyNarrow[0]!.includes(name), `${name} is said to leave scores alone: ${onlyNarrow[0]}`);
    }
    assert.ok(!onlyNarrow[0]!.includes('skin_type'), onlyNarrow[0]);
    for (const text of [description, await argument(ends.guest, 'recommend_products', 'skin_type')]) {
      assert.match(text, /keeps only products suited to/i);
      assert.match(text, /dry, products holding a drying alcohol score lower/);
    }
  });

  it('product_type finds the retailers’ types of each kind, shown as the catalog gives them; the text says so', async () => {
    const found: [string, string, string][] = [
      ['moisturizer', 'rt-face-oil', 'Face Oil'],
      ['serum', 'rt-essence', 'Essence'],
      ['toner', 'rt-mist', 'Mist'],
    ];
    const descriptions = [
      await argument(ends.guest, 'recommend_products', 'product_type'),
      await argument(ends.account, 'search_products', 'product_type'),
    ];
    for (const [kind, id, stored] of found) {
      const { products } = await readTool(ends.account, 'search_products', { product_type: kind });
      const product = products.find((p: any) => p.product_id === id);
      assert.equal(product?.product_type, stored, `${kind}: ${JSON.stringify(products)}`);
      for (const text of descriptions) {
        assert.match(text, new RegExp(`${kind} finds [^;]*${stored}`, 'i'), `${kind} ${stored}: ${text}`);
      }
    }
    for (const text of descriptions) assert.match(text, /shown as the catalog gives it/);
    // The answers' product_type says the same.
    const shown = [
      (await tool(ends.guest, 'recommend_products')).outputSchema as any,
      (await tool(ends.account, 'search_products')).outputSchema as any,
    ].map((schema) => schema.anyOf[0].properties.products.items.properties.product_type.description);
    for (const text of shown) assert.match(text, /retailer’s word \(face oil, essence, mist\)/);
  });

  it('brand or country left blank filters nothing, as their descriptions say', async () => {
    const all = (await readTool(ends.account, 'search_products', {})).products.length;
    for (const arg of ['brand', 'country']) {
      const { products } = await readTool(ends.account, 'search_products', { [arg]: '   ' });
      assert.equal(products.length, all, arg);
      assert.match(
        await argument(ends.guest, 'recommend_products', arg),
        /Empty or only spaces: no filter\./,
      );
    }
  });
});
