/**
 * The ingredient tools (GetIngredient, SearchIngredients) answer from the knowledge base: every name of its
 * data files is known whatever catalog is loaded, a name only the catalog's products list is known with no
 * facts, a name is read as a label prints it, a search
 * looks at every spelling the knowledge base has, and a group word answers its group with its members.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Code, ConnectError } from '@connectrpc/connect';
import type { Ingredient } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { CatalogServiceImpl } from '../../services/catalog/catalog-service.ts';
import type { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { rawProduct } from '../support/raw-product.ts';

const KNOWLEDGE_DIR = new URL('../../services/catalog/knowledge/', import.meta.url);
const PEPPER = Buffer.alloc(32, 7);

/** The service over a catalog of these ingredient lists (none: an empty catalog; null: unavailable). */
function service(lists: readonly string[] | null): CatalogServiceImpl {
  const index = new CatalogIndex(
    (lists ?? []).map((ingredients, i) => deriveProduct(rawProduct(`p-${i}`, { ingredients }))),
  );
  return new CatalogServiceImpl({ available: lists !== null, index } as LiveCatalog, PEPPER);
}

const SHOP = service([
  'Aqua, Butylene Glycol, Unobtainium Flower Extract, Niacinamide, Phenoxyethanol',
  'Water, Glycerin, Sodium Hyaluronate, Zinc PCA',
]);
const EMPTY = service([]);
const UNAVAILABLE = service(null);

/** Every plain name the data files write: entry names and patterns without a wildcard. */
function knowledgeNames(): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(KNOWLEDGE_DIR).filter((f) => f.endsWith('.json'))) {
    if (file === 'manifest.json' || file === 'groups.json') continue;
    const data = JSON.parse(readFileSync(new URL(file, KNOWLEDGE_DIR), 'utf8'));
    for (const entry of data.actives ?? data.entries) {
      for (const name of [entry.name, ...(entry.match ?? []), ...(entry.except ?? [])]) {
        if (!name.includes('*') && !name.startsWith('@')) names.add(name);
      }
    }
  }
  return [...names];
}

const get = async (catalog: CatalogServiceImpl, name: string): Promise<Ingredient> =>
  (await catalog.getIngredient({ name } as never)).ingredient!;
const notFound = async (catalog: CatalogServiceImpl, name: string) =>
  assert.rejects(catalog.getIngredient({ name } as never), (err) => {
    assert.equal(ConnectError.from(err).code, Code.NotFound, name);
    assert.equal(errorReason(err), 'not_found', name);
    return true;
  });
const search = async (catalog: CatalogServiceImpl, query: string) =>
  (await catalog.searchIngredients({ query, pageSize: 100, pageToken: '' } as never)).ingredients.map(
    (i) => i.name,
  );

describe('ingredient lookup: the knowledge base, whatever catalog is loaded', () => {
  it('every plain name of knowledge/*.json is known, with the same answer under any catalog or none', async () => {
    const names = knowledgeNames();
    assert.ok(names.length > 300, `${names.length} names`);
    for (const name of names) {
      const answer = await get(SHOP, name);
      assert.deepEqual(await get(EMPTY, name), answer, name);
      assert.deepEqual(await get(UNAVAILABLE, name), answer, name);
    }
    const hyaluronic = await get(EMPTY, 'hyaluronic acid');
    assert.ok(hyaluronic.addresses.length > 0 && hyaluronic.reasons.length > 0);
    assert.deepEqual((await get(EMPTY, 'octocrylene')).name, 'octocrylene');
    assert.ok((await get(EMPTY, 'kojic acid')).addresses.some((a) => a.concern === 'dark_spots'));
    await notFound(EMPTY, 'Unobtainium Flower Extract');
  });

  it('a name only the catalog lists is an ingredient with no facts, found by search, gone with the catalog', async () => {
    for (const label of [
      'Unobtainium Flower Extract',
      'UNOBTAINIUM FLOWER EXTRACT 0.5%',
      'Butylene Glycol',
    ]) {
      const answer = await get(SHOP, label);
      assert.equal(answer.name, label.startsWith('B') ? 'butylene glycol' : 'unobtainium flower extract');
      assert.deepEqual([answer.addresses, answer.flags, answer.reasons, answer.members], [[], [], [], []]);
    }
    await notFound(UNAVAILABLE, 'Butylene Glycol');
    assert.deepEqual(await search(SHOP, 'unobtainium'), ['unobtainium flower extract']);
    assert.deepEqual(await search(EMPTY, 'unobtainium'), []);
    // Merged by name among the knowledge base's own matches.
    const glycols = await search(SHOP, 'glycol');
    assert.ok(glycols.includes('butylene glycol'), glycols.join());
    assert.deepEqual(glycols, [...glycols].sort());
    assert.ok(!(await search(EMPTY, 'glycol')).includes('butylene glycol'));
  });

  it('names as labels print them: percentages, trademark signs, footnote marks, width, accents, patterns', async () => {
    const cases: [string, string][] = [
      ['Salicylic Acid 2%', 'salicylic acid'],
      ['Niacinamide®', 'niacinamide'],
      ['Ascorbic Acid™ (15%)', 'ascorbic acid'],
      ['Retinol*', 'retinol'],
      ['Ｎｉａｃｉｎａｍｉｄｅ　５％', 'niacinamide'],
      ['Glycérine', 'glycerin'],
      ['Niacinimide', 'niacinamide'],
      ['SD alcohol 40', 'sd alcohol 40'],
      ['Simmondsia Chinensis Seed Oil', 'simmondsia chinensis seed oil'],
    ];
    for (const [label, name] of cases) assert.equal((await get(EMPTY, label)).name, name, label);
    assert.deepEqual((await get(EMPTY, 'SD alcohol 40')).flags, ['drying-alcohols']);
    assert.ok((await get(EMPTY, 'Simmondsia Chinensis Seed Oil')).flags.includes('rich-texture'));
    for (const nothing of ['unobtainium', '2%', '®']) await notFound(EMPTY, nothing);
  });

  it('group words answer their group, with members and the reason, never one member as the whole', async () => {
    const bha = await get(EMPTY, 'BHA');
    assert.equal(bha.name, 'bha');
    assert.deepEqual(bha.addresses, []);
    assert.ok(bha.members.includes('salicylic acid') && bha.members.includes('betaine salicylate'));
    assert.match(bha.reasons.join(' '), /butylated hydroxyanisole/);
    assert.deepEqual(await get(EMPTY, 'beta hydroxy acids'), bha);
    assert.equal((await get(EMPTY, 'beta hydroxy acid')).name, 'salicylic acid', 'a synonym stays one');
    assert.equal((await get(EMPTY, 'Cica')).name, 'centella');
    assert.ok((await get(EMPTY, 'cica')).members.includes('madecassoside'));
    assert.ok((await get(EMPTY, 'AHA')).members.includes('glycolic acid'));
    assert.ok((await get(EMPTY, 'Peptides')).members.includes('palmitoyl tripeptide-1'));
    const ceramides = await get(EMPTY, 'Ceramides');
    assert.ok(ceramides.members.includes('ceramide *'));
    assert.ok(ceramides.addresses.some((a) => a.concern === 'redness'));
    const greenTea = await get(EMPTY, 'green tea');
    assert.ok(greenTea.members.includes('camellia sinensis leaf extract'));
    assert.ok(greenTea.addresses.length > 0);
    // A common name the synonym table maps stays that ingredient, with every list it is on.
    const coconut = await get(EMPTY, 'Coconut Oil');
    assert.equal(coconut.name, 'cocos nucifera oil');
    assert.ok(coconut.flags.includes('pore-clogging'));
    assert.deepEqual(coconut.members, []);
    // Every plain member of every group is an ingredient the knowledge base knows by that name.
    for (const group of ['bha', 'aha', 'pha', 'peptides', 'cica', 'retinoids', 'ceramides', 'green tea']) {
      const { name, members, reasons } = await get(EMPTY, group);
      assert.ok(reasons.length > 0 && members.length > 0, group);
      // (`ceramides` is also a word labels print, which barrier support lists: the group's own word.)
      for (const member of members.filter((m) => !m.includes('*') && m !== name)) {
        const answer = await get(EMPTY, member);
        assert.equal(answer.name, member, `${group}: ${member}`);
        assert.deepEqual(answer.members, [], `${group}: ${member}`);
      }
    }
  });

  it('search_ingredients finds names, synonyms, misspellings and group words, spelled as get_ingredient reads them', async () => {
    const cases: [string, string[]][] = [
      ['vitamin', ['ascorbic acid', 'niacinamide', 'retinol', 'tocopherol']],
      ['Vitamin C', ['ascorbic acid']],
      ['vitamin e', ['tocopherol', 'tocopheryl acetate']],
      ['nicotinamide', ['niacinamide']],
      ['parfum', ['fragrance']],
      ['aqua', ['water']],
      ['tea tree', ['melaleuca alternifolia leaf oil']],
      ['glycérine', ['glycerin']],
      ['ceramide  np', ['ceramide np']],
      ['Niacinimide', ['niacinamide']],
      ['hyaluronic', ['hyaluronic acid']],
      ['Kojic Acid 1%', ['kojic acid']],
      ['cica', ['centella']],
    ];
    for (const [query, expected] of cases) {
      const found = await search(SHOP, query);
      for (const name of expected) assert.ok(found.includes(name), `${query} → ${found.join(', ')}`);
      assert.deepEqual(found, [...new Set(found)].sort(), query);
      assert.deepEqual(await search(UNAVAILABLE, query), await search(EMPTY, query), query);
    }
    assert.deepEqual(await search(SHOP, 'Vitamin C'), ['ascorbic acid']);
  });

  it('a blank query lists every ingredient and group once, page by page', async () => {
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await SHOP.searchIngredients({ query: ' ', pageSize: 100, pageToken } as never);
      seen.push(...page.ingredients.map((i) => i.name));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    assert.equal(new Set(seen).size, seen.length);
    for (const name of ['hyaluronic acid', 'octocrylene', 'arbutin', 'bha', 'ceramides']) {
      assert.ok(seen.includes(name), name);
    }
  });
});
