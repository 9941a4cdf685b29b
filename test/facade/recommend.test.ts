import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { compileProduct, score } from '../../services/match/engine/index.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import {
  completeScan,
  HEALTHY_SCORES,
  RED_ACNE_SCORES,
  setScanStatus,
  TEST_CATALOG,
} from '../support/fixtures.ts';
import { callTool, connectSdkClient, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

type Identity = { run_id: string; access_token: string };

async function newScan(stack: Stack, complete = true, scores = RED_ACNE_SCORES): Promise<Identity> {
  const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'recommend' });
  const identity = {
    run_id: started.structuredContent.run_id,
    access_token: started.structuredContent.access_token,
  };
  if (complete) await completeScan(stack.orm, identity.run_id, scores);
  return identity;
}

describe('recommend_products', () => {
  let stack: Stack;
  let client: Client;

  before(async () => {
    stack = await startStack('recommend', { products: TEST_CATALOG });
    client = await connectSdkClient(stack.baseUrl);
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  it('is listed with the spec annotations and input fields', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'recommend_products')!;
    assert.deepEqual(
      { ...tool.annotations, title: undefined },
      {
        title: undefined,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
    );
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), [
      'access_token',
      'brand',
      'country',
      'cruelty_free',
      'free_from',
      'product_type',
      'run_id',
      'skin_type',
      'vegan',
    ]);
  });

  it('returns the best products once, then an empty list with upgrade_required', async () => {
    const scan = await newScan(stack);
    const first = await client.callTool({ name: 'recommend_products', arguments: scan });
    assert.equal(first.isError, undefined);
    const result = first.structuredContent as any;
    assert.deepEqual(result.scan_concerns, ['redness', 'acne', 'dark_spots']);
    assert.equal(result.products.length, 5);
    const scores = result.products.map((p: any) => p.match_score);
    assert.deepEqual(
      [...scores].sort((a, b) => b - a),
      scores,
      'best first',
    );
    assert.equal(result.products[0].product_id, 't-azelaic');
    assert.deepEqual(result.products[0].matches_concerns.slice().sort(), ['acne', 'dark_spots', 'redness']);
    assert.deepEqual(result.products[0].attributes, {
      vegan: true,
      cruelty_free: true,
      fragrance_free: true,
      alcohol_free: true,
      fungal_acne_safe: true,
    });
    assert.ok(!result.products.some((p: any) => p.product_id === 't-nolist' && p.match_score !== null));
    assert.match(result.match_basis, /redness/);
    assert.match(result.match_basis, /engine \d+\.\d+\.\d+/);
    assert.match(result.limitations, /not a diagnosis/);
    assert.deepEqual(result.entitlement, {
      tier: 'free_guest',
      used: 1,
      included: 1,
      remaining: 0,
      upgrade_required: false,
      more_in_app: 'The skinmatch app shows more matches for this scan and tracks changes over time.',
    });

    const second = await client.callTool({ name: 'recommend_products', arguments: scan });
    const again = second.structuredContent as any;
    assert.deepEqual(again.products, []);
    assert.equal(again.entitlement.upgrade_required, true);
    assert.equal(again.entitlement.remaining, 0);
  });

  it('filters narrow the candidates and never change a score', async () => {
    const filtered = (
      await callTool(stack.baseUrl, 'recommend_products', {
        ...(await newScan(stack)),
        product_type: 'serum',
        free_from: ['fragrance'],
        brand: 'TESTBRAND',
      })
    ).structuredContent;
    assert.ok(filtered.products.length > 0);
    // Each product's score as the engine gives it for this scan with no filter at all.
    const concerns = concernsFromScores(RED_ACNE_SCORES);
    for (const p of filtered.products) {
      assert.equal(p.product_type, 'serum');
      assert.equal(p.brand, 'Testbrand');
      assert.equal(p.attributes.fragrance_free, true);
      const raw = TEST_CATALOG.find((q) => q.product_id === p.product_id)!;
      assert.equal(p.match_score, score(concerns, compileProduct(deriveProduct(raw))), p.product_id);
    }
    assert.ok(!filtered.products.some((p: any) => p.product_id === 't-fragrant'));
  });

  it('a product whose ingredient field is not a list (unknown flags) never passes a free_from filter', async () => {
    const res = await callTool(stack.baseUrl, 'recommend_products', {
      ...(await newScan(stack)),
      product_type: 'toner',
      free_from: ['fragrance', 'alcohol', 'fungal_acne_triggers'],
    });
    const ids = res.structuredContent.products.map((p: any) => p.product_id);
    assert.deepEqual(ids, ['t-centella']);
    // Its flags and its score are unknown (null); a product with no score is no match, so it is not
    // recommended even with no other filter.
    const placeholder = deriveProduct(TEST_CATALOG.find((p) => p.product_id === 't-placeholder')!);
    assert.deepEqual(placeholder.attributes, {
      vegan: null,
      cruelty_free: null,
      fragrance_free: null,
      alcohol_free: null,
      fungal_acne_safe: null,
    });
    assert.equal(score(concernsFromScores(RED_ACNE_SCORES), compileProduct(placeholder)), null);
    const unfiltered = await callTool(stack.baseUrl, 'recommend_products', {
      ...(await newScan(stack)),
      product_type: 'toner',
    });
    const toners = unfiltered.structuredContent.products;
    assert.ok(toners.length > 0);
    assert.ok(!toners.some((p: any) => p.product_id === 't-placeholder'));
    assert.ok(toners.every((p: any) => p.match_score > 0));
  });

  it('vegan, cruelty_free and country filters', async () => {
    const res = await callTool(stack.baseUrl, 'recommend_products', {
      ...(await newScan(stack)),
      vegan: true,
      cruelty_free: true,
    });
    assert.deepEqual(
      res.structuredContent.products.map((p: any) => p.product_id),
      ['t-azelaic'],
    );
    const korea = await callTool(stack.baseUrl, 'recommend_products', {
      ...(await newScan(stack)),
      country: 'korea',
    });
    assert.deepEqual(
      korea.structuredContent.products.map((p: any) => p.product_id),
      ['t-vitc'],
    );
  });

  it('no candidate: success with no products, and the allowance is kept', async () => {
    const scan = await newScan(stack);
    const none = await callTool(stack.baseUrl, 'recommend_products', { ...scan, brand: 'No Such Brand' });
    assert.equal(none.isError, undefined);
    assert.deepEqual(none.structuredContent.products, []);
    assert.equal(none.structuredContent.entitlement.used, 0);
    assert.equal(none.structuredContent.entitlement.upgrade_required, false);
    const then = await callTool(stack.baseUrl, 'recommend_products', scan);
    assert.equal(then.structuredContent.products.length, 5);
  });

  it('rule 2 holds when the allowance is used and the filters leave no candidate', async () => {
    const scan = await newScan(stack);
    assert.equal(
      (await callTool(stack.baseUrl, 'recommend_products', scan)).structuredContent.products.length,
      5,
    );
    const none = await callTool(stack.baseUrl, 'recommend_products', { ...scan, brand: 'No Such Brand' });
    assert.equal(none.isError, undefined);
    assert.deepEqual(none.structuredContent.products, []);
    assert.equal(none.structuredContent.entitlement.used, 1);
    assert.equal(none.structuredContent.entitlement.remaining, 0);
    assert.equal(none.structuredContent.entitlement.upgrade_required, true);
  });

  it('a scan with no concern gets a scored maintenance match, explained in match_basis', async () => {
    const result = (
      await callTool(stack.baseUrl, 'recommend_products', await newScan(stack, true, HEALTHY_SCORES))
    ).structuredContent;
    assert.deepEqual(result.scan_concerns, []);
    assert.match(result.match_basis, /no concern.*maintenance.*gentle.*barrier support.*sun protection/);
    assert.match(result.match_basis, /engine 1\.1\.0/);
    assert.equal(result.entitlement.used, 1);
    // Gentle, barrier-supporting sun protection first; every score known; nothing claims to match a concern.
    assert.deepEqual(
      result.products.map((p: any) => [p.product_id, p.match_score]),
      [
        ['t-spf', 100],
        ['t-azelaic', 63],
        ['t-centella', 63],
        ['t-plain', 38],
        ['t-retinol', 38],
      ],
    );
    assert.ok(result.products.every((p: any) => p.matches_concerns.length === 0));

    // A stated skin type fits the match: the rich cream does not suit oily skin.
    const oily = (
      await callTool(stack.baseUrl, 'recommend_products', {
        ...(await newScan(stack, true, HEALTHY_SCORES)),
        skin_type: 'oily',
      })
    ).structuredContent;
    assert.match(oily.match_basis, /fitted to the stated oily skin type/);
    assert.deepEqual(
      oily.products.map((p: any) => [p.product_id, p.match_score]),
      [
        ['t-spf', 100],
        ['t-azelaic', 63],
        ['t-centella', 63],
        ['t-plain', 38],
        ['t-vitc', 38],
      ],
    );
  });

  it('exactly one of 20 simultaneous first calls gets products', async () => {
    const scan = await newScan(stack);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => callTool(stack.baseUrl, 'recommend_products', scan)),
    );
    const withProducts = results.filter((r) => r.structuredContent.products.length > 0);
    assert.equal(withProducts.length, 1);
    assert.equal(results.filter((r) => r.structuredContent.entitlement.upgrade_required).length, 19);
  });

  describe('errors', () => {
    const cases: [string, object, string, string | undefined][] = [
      ['unknown key', { colour: 'red' }, 'invalid_input', 'colour'],
      ['product_type outside the enum', { product_type: 'shampoo' }, 'invalid_input', 'product_type'],
      ['skin_type outside the enum', { skin_type: 'sensitive' }, 'invalid_input', 'skin_type'],
      [
        'free_from over 3 items',
        { free_from: ['fragrance', 'alcohol', 'fragrance', 'alcohol'] },
        'invalid_input',
        'free_from',
      ],
      ['free_from item outside the enum', { free_from: ['parabens'] }, 'invalid_input', 'free_from.0'],
      ['brand over 60 characters', { brand: 'b'.repeat(61) }, 'invalid_input', 'brand'],
      ['country over 40 characters', { country: 'c'.repeat(41) }, 'invalid_input', 'country'],
      ['vegan not boolean', { vegan: 'yes' }, 'invalid_input', 'vegan'],
      ['missing run_id', { run_id: undefined }, 'scan_required', undefined],
    ];
    for (const [title, change, code, field] of cases) {
      it(`${title} → ${code}`, async () => {
        const result = await callTool(stack.baseUrl, 'recommend_products', {
          ...(await newScan(stack)),
          ...change,
        });
        assert.equal(errorCode(result), code);
        assert.equal(result.structuredContent.error.field, field);
      });
    }

    it('wrong token and unknown scan → not_found', async () => {
      const scan = await newScan(stack);
      const wrong = await callTool(stack.baseUrl, 'recommend_products', {
        ...scan,
        access_token: 'e'.repeat(64),
      });
      assert.equal(errorCode(wrong), 'not_found');
      const unknown = await callTool(stack.baseUrl, 'recommend_products', {
        ...scan,
        run_id: '5d0c0b6e-8f3a-4b4f-9a51-1f3f7e1c2d3b',
      });
      assert.equal(errorCode(unknown), 'not_found');
    });

    it('no photo yet → scan_not_uploaded; uploaded but not complete → scan_not_ready', async () => {
      const scan = await newScan(stack, false);
      assert.equal(errorCode(await callTool(stack.baseUrl, 'recommend_products', scan)), 'scan_not_uploaded');
      for (const status of ['queued', 'analyzing', 'failed'] as const) {
        await setScanStatus(stack.orm, scan.run_id, status);
        assert.equal(
          errorCode(await callTool(stack.baseUrl, 'recommend_products', scan)),
          'scan_not_ready',
          status,
        );
      }
    });

    it('validation failures do not consume the allowance', async () => {
      const scan = await newScan(stack);
      await callTool(stack.baseUrl, 'recommend_products', { ...scan, product_type: 'shampoo' });
      const ok = await callTool(stack.baseUrl, 'recommend_products', scan);
      assert.equal(ok.structuredContent.products.length, 5);
    });
  });
});

describe('recommend_products when things go wrong', () => {
  it('an empty catalog → catalog_unavailable, unless the allowance is used (rule 2)', async () => {
    const stack = await startStack('recommend-empty');
    try {
      // /health tells the operator why, before any agent meets it.
      const health = (await (await fetch(`${stack.baseUrl}/health`)).json()) as Record<string, unknown>;
      assert.equal(health.catalog, 'empty');
      assert.equal(health.ok, true);
      const scan = await newScan(stack);
      assert.equal(
        errorCode(await callTool(stack.baseUrl, 'recommend_products', scan)),
        'catalog_unavailable',
      );
      // Rule 2 holds even then: once the allowance is used, the answer is upgrade_required, not an error.
      await stack.orm.em
        .getConnection()
        .execute(
          `insert into scan_matches (run_id, consumed_at, product_ids, engine_version) values (?, now(), '[]', 'test')`,
          [scan.run_id],
        );
      const used = await callTool(stack.baseUrl, 'recommend_products', scan);
      assert.equal(used.isError, undefined);
      assert.deepEqual(used.structuredContent.products, []);
      assert.equal(used.structuredContent.entitlement.upgrade_required, true);
    } finally {
      await stack.close();
    }
  });

  it('product ids with quotes and backslashes are recorded exactly in the allowance row', async () => {
    const odd = TEST_CATALOG.map((product) => ({ ...product, product_id: `${product.product_id}'\\"` }));
    const stack = await startStack('recommend-quotes', { products: odd });
    try {
      const scan = await newScan(stack);
      const result = await callTool(stack.baseUrl, 'recommend_products', scan);
      const ids = result.structuredContent.products.map((p: { product_id: string }) => p.product_id);
      assert.equal(ids.length, 5);
      assert.ok(
        ids.every((id: string) => id.endsWith(`'\\"`)),
        String(ids),
      );
      const [row] = await stack.orm.em
        .getConnection()
        .execute('select product_ids from scan_matches where run_id = ?', [scan.run_id]);
      assert.deepEqual(row?.product_ids, ids);
    } finally {
      await stack.close();
    }
  });

  it('a failure after consuming, before answering, does not use the allowance up', async () => {
    let failures = 1;
    const stack = await startStack('recommend-crash', {
      products: TEST_CATALOG,
      afterConsume: () => {
        if (failures-- > 0) throw new Error('simulated crash after consuming');
      },
    });
    try {
      const scan = await newScan(stack);
      const crashed = await callTool(stack.baseUrl, 'recommend_products', scan);
      assert.equal(errorCode(crashed), 'unavailable', "a server fault, not the caller's");
      assert.equal(crashed.structuredContent.error.retry_after_seconds, 5);
      const retry = await callTool(stack.baseUrl, 'recommend_products', scan);
      assert.equal(retry.structuredContent.products.length, 5);
      assert.equal(retry.structuredContent.entitlement.upgrade_required, false);
    } finally {
      await stack.close();
    }
  });
});
