import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Ajv } from 'ajv';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { compileProduct, score } from '../../services/match/engine/index.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import { createAccount, mintToken } from '../support/bearer.ts';
import { completeScan, product, RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { startStack } from '../support/stack.ts';
import { callTool, readTool, twoEndpoints } from '../support/two-endpoints.ts';

/**
 * A guest scan has one match, and an answer that never reaches the agent (the SDK client cancelled the
 * call, the connection dropped after core committed, a new conversation) must not lose the person's
 * products: get_skin_scan shows them again in used_match, on /mcp and /mcp/account, and recommend_products,
 * which now answers none (spec rule 2), says where they are. Real MCP SDK clients that listed the tools,
 * and each answer checked against the listed outputSchema here too.
 */
const EVERY_SKIN_TYPE = ['dry', 'oily', 'combination', 'normal'];
/** The test catalog, every product declared for every skin type (the skin_type filter passes them all),
 * plus a serum with a drying alcohol: a stated dry skin type lowers its score (engine/conflicts.ts). */
const CATALOG: RawProduct[] = [
  ...TEST_CATALOG.map((raw) => ({ ...raw, skin_types: EVERY_SKIN_TYPE })),
  product('t-alcohol', {
    name: 'Quick Dry Azelaic Gel',
    skin_types: EVERY_SKIN_TYPE,
    ingredients: 'Aqua, Alcohol Denat., Azelaic Acid, Niacinamide, Salicylic Acid, Allantoin',
  }),
];

/** Holds a match's commit while a test looks (null: commit at once). */
let holdCommit: (() => Promise<void>) | null = null;

describe('a used match’s products stay readable in get_skin_scan', () => {
  const ends = twoEndpoints('used-match', { products: CATALOG, afterConsume: () => holdCommit?.() });
  const validators = new Map<string, (value: unknown) => boolean>();
  before(async () => {
    // Structure only here: the SDK client also checks every answer, formats included, against the listing.
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    for (const [endpoint, client] of [
      ['guest', ends.guest],
      ['account', ends.account],
    ] as const) {
      for (const tool of (await client.listTools()).tools) {
        validators.set(`${endpoint} ${tool.name}`, ajv.compile(tool.outputSchema!));
      }
    }
  });

  /** A tool call that must succeed, whose answer must validate against the tool's listed outputSchema. */
  const read = async (endpoint: 'guest' | 'account', name: string, args: Record<string, unknown>) => {
    const body = await readTool(ends[endpoint], name, args);
    const validate = validators.get(`${endpoint} ${name}`)!;
    assert.ok(validate(body), JSON.stringify((validate as any).errors));
    return body;
  };
  const completeGuestScan = async () => {
    const started = await read('guest', 'start_skin_scan', { source: 'used-match' });
    await completeScan(ends.stack.orm, started.run_id, RED_ACNE_SCORES);
    return { run_id: started.run_id as string, access_token: started.access_token as string };
  };
  const matchRow = async (runId: string) =>
    (await ends.stack.orm.em.getConnection().execute('select 1 from scan_matches where run_id = ?', [runId]))
      .length;

  it('get_skin_scan shows the products the spending call returned, and when; recommend_products points there', async () => {
    const scan = await completeGuestScan();
    const before = Date.now();
    const first = await read('guest', 'recommend_products', { ...scan, skin_type: 'dry' });
    const after = Date.now();
    assert.equal(first.products.length, 5);
    // The stated skin type changes a score among them, so get_skin_scan must score with it as well.
    const concerns = concernsFromScores(RED_ACNE_SCORES);
    const raw = CATALOG.find((p) => p.product_id === 't-alcohol')!;
    const alcohol = first.products.find((p: { product_id: string }) => p.product_id === 't-alcohol');
    assert.ok(alcohol, 'the drying-alcohol serum is among them');
    assert.notEqual(alcohol.match_score, score(concerns, compileProduct(deriveProduct(raw))));

    const state = await read('guest', 'get_skin_scan', scan);
    assert.equal(state.next_action, 'none');
    assert.deepEqual(state.used_match.products, first.products);
    assert.equal(state.used_match.left_out, 0);
    const usedAt = Date.parse(state.used_match.used_at);
    assert.ok(usedAt >= before - 1000 && usedAt <= after + 1000, state.used_match.used_at);
    assert.match(state.used_match.match_basis, /^Scored against the scan's concerns.*redness/);
    assert.match(state.used_match.match_basis, /The person stated dry skin\.$/);

    const second = await read('guest', 'recommend_products', scan);
    assert.deepEqual(second.products, []);
    assert.equal(second.entitlement.upgrade_required, true);
    assert.match(
      second.match_basis,
      /This scan's one match is already used, so no products are returned now\. The products it returned are not lost: get_skin_scan shows them again for this scan, in used_match/,
    );
    // The same read on /mcp/account with the scan's pair, and read again: the same items.
    assert.deepEqual((await read('account', 'get_skin_scan', scan)).used_match, state.used_match);
    assert.deepEqual((await read('guest', 'get_skin_scan', scan)).used_match, state.used_match);
  });

  it('a call the SDK client cancelled after the match was spent: its products are in get_skin_scan', async () => {
    const reference = await completeGuestScan();
    const expected = (await read('guest', 'recommend_products', reference)).products;
    const scan = await completeGuestScan();
    const controller = new AbortController();
    let consumed!: () => void;
    const reached = new Promise<void>((resolve) => {
      consumed = resolve;
    });
    let commit!: () => void;
    holdCommit = () =>
      new Promise<void>((resolve) => {
        commit = resolve;
        consumed();
      });
    try {
      const call = ends.guest.callTool({ name: 'recommend_products', arguments: scan }, undefined, {
        signal: controller.signal,
      });
      await reached;
      controller.abort('the person pressed stop');
      await assert.rejects(call);
      commit();
    } finally {
      holdCommit = null;
    }
    // The server answered the open request; the client threw it away. The match is spent...
    let state: Record<string, any>;
    do state = await read('guest', 'get_skin_scan', scan);
    while (state.next_action !== 'none');
    // ...and its products are not lost.
    assert.deepEqual(state.used_match.products, expected);
    const retry = await read('guest', 'recommend_products', scan);
    assert.deepEqual(retry.products, []);
    assert.match(retry.match_basis, /get_skin_scan shows them again for this scan, in used_match/);
  });

  it('a product withdrawn from the catalog since is left out, and the answer says so; deletion removes it', async () => {
    const scan = await completeGuestScan();
    const first = await read('guest', 'recommend_products', scan);
    const gone = first.products[1].product_id;
    await ends.stack.orm.em.getConnection().execute('delete from products where product_id = ?', [gone]);
    let state: Record<string, any>;
    const deadline = Date.now() + 10_000;
    do {
      state = await read('guest', 'get_skin_scan', scan);
      assert.ok(Date.now() < deadline, 'core never reloaded its catalog');
    } while (state.used_match.left_out === 0);
    assert.deepEqual(
      state.used_match.products,
      first.products.filter((p: { product_id: string }) => p.product_id !== gone),
    );
    assert.equal(state.used_match.left_out, 1);
    assert.match(
      state.used_match.match_basis,
      /One product of the 5 this match returned has been withdrawn from the catalog since and is left out\.$/,
    );
    assert.equal(await matchRow(scan.run_id), 1);
    await read('guest', 'delete_skin_scan', scan);
    assert.equal(await matchRow(scan.run_id), 0);
  });

  it('get_skin_scan’s outputSchema has used_match; a scan whose match is unused has none', async () => {
    for (const client of [ends.guest, ends.account]) {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'get_skin_scan')!;
      const answer = (tool.outputSchema as any).anyOf[0];
      assert.deepEqual(answer.properties.used_match.required, [
        'used_at',
        'products',
        'left_out',
        'match_basis',
      ]);
      assert.equal(answer.properties.used_match.properties.products.maxItems, 5);
      assert.match(tool.description!, /used_match/);
    }
    const started = await read('guest', 'start_skin_scan', { source: 'used-match' });
    const scan = { run_id: started.run_id, access_token: started.access_token };
    assert.equal((await read('guest', 'get_skin_scan', scan)).used_match, undefined);
    await completeScan(ends.stack.orm, scan.run_id, RED_ACNE_SCORES);
    const unused = await read('guest', 'get_skin_scan', scan);
    assert.equal(unused.next_action, 'recommend_products');
    assert.equal(unused.used_match, undefined);
  });

  it('/mcp/account: an account’s scan read by run_id alone shows it; the account’s deletion removes it', async () => {
    const accountId = await createAccount(ends.stack.coreUrl, 'used-match-deleted');
    const client: Client = await connectSdkClient(ends.stack.baseUrl, '/mcp/account', {
      authorization: `Bearer ${await mintToken(ends.stack, accountId)}`,
    });
    try {
      const started = (await callTool(client, 'start_skin_scan', { source: 'used-match' })).body;
      await completeScan(ends.stack.orm, started.run_id, RED_ACNE_SCORES);
      const pair = { run_id: started.run_id, access_token: started.access_token };
      const first = (await callTool(client, 'recommend_products', pair)).body;
      assert.equal(first.products.length, 5);
      const state = (await callTool(client, 'get_skin_scan', { run_id: started.run_id })).body;
      assert.equal(state.next_action, 'none');
      assert.deepEqual(state.used_match.products, first.products);
      const validate = validators.get('account get_skin_scan')!;
      assert.ok(validate(state), JSON.stringify((validate as any).errors));

      await callTool(client, 'delete_my_service_data', {});
      assert.equal(await matchRow(started.run_id), 0);
    } finally {
      await client.close();
    }
  });

  it('while the catalog cannot be read, used_match says so instead of showing the products', async () => {
    const stack = await startStack('used-match-no-catalog');
    const client = await connectSdkClient(stack.baseUrl);
    try {
      await client.listTools();
      const started = (await callTool(client, 'start_skin_scan', { source: 'used-match' })).body;
      const scan = { run_id: started.run_id, access_token: started.access_token };
      await completeScan(stack.orm, scan.run_id, RED_ACNE_SCORES);
      await stack.orm.em
        .getConnection()
        .execute(
          `insert into scan_matches (run_id, consumed_at, product_ids, engine_version) values (?, now(), '["a", "b"]', '1.1.0')`,
          [scan.run_id],
        );
      const state = (await callTool(client, 'get_skin_scan', scan)).body;
      assert.deepEqual(state.used_match.products, []);
      assert.equal(state.used_match.left_out, 2);
      assert.match(
        state.used_match.match_basis,
        /The product catalog cannot be read at the moment, so the 2 products this match returned are not shown: read the scan again in a minute to see them\.$/,
      );
      const validate = validators.get('guest get_skin_scan')!;
      assert.ok(validate(state), JSON.stringify((validate as any).errors));
    } finally {
      await client.close();
      await stack.close();
    }
  });
});
