/**
 * The country filter's key (services/catalog/filter-keys.ts): ISO 3166-1 alpha-2 on both sides, read from
 * codes and names as exports and callers write them; a value that names no country, or two, keeps the
 * exact folded comparison.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { countryKey } from '../../services/catalog/filter-keys.ts';
import { rawProduct } from '../support/raw-product.ts';

describe('the country filter’s key', () => {
  it('codes in any case and names in English or a market’s language are the alpha-2 code', () => {
    const cases: [string, string][] = [
      ['FR', 'FR'],
      ['fr', 'FR'],
      [' Fr ', 'FR'],
      ['FRA', 'FR'],
      ['France', 'FR'],
      ['FRANCE', 'FR'],
      ['\uff26\uff52\uff41\uff4e\uff43\uff45', 'FR'],
      ['USA', 'US'],
      ['U.S.', 'US'],
      ['U.S.A.', 'US'],
      ['United States', 'US'],
      ['the United States', 'US'],
      ['United States of America', 'US'],
      ['Korea', 'KR'],
      ['South Korea', 'KR'],
      ['Republic of Korea', 'KR'],
      ['Korea, Republic of', 'KR'],
      ['KOR', 'KR'],
      ['대한민국', 'KR'],
      ['Corée du Sud', 'KR'],
      ['UK', 'GB'],
      ['United Kingdom', 'GB'],
      ['Great Britain', 'GB'],
      ['England', 'GB'],
      ['Japan', 'JP'],
      ['日本', 'JP'],
      ['Germany', 'DE'],
      ['Deutschland', 'DE'],
      ['Côte d’Ivoire', 'CI'],
      ["Cote d'Ivoire", 'CI'],
      ['Türkiye', 'TR'],
      ['Turkey', 'TR'],
      ['The Netherlands', 'NL'],
      ['Holland', 'NL'],
      ['Sverige', 'SE'],
    ];
    for (const [value, code] of cases) assert.equal(countryKey(value), code, value);
  });

  it('a value that names no country, or two, is compared as text: lower case, never a code', () => {
    assert.equal(countryKey('Atlantis'), 'atlantis');
    assert.equal(countryKey(' ATLANTIS  '), 'atlantis');
    assert.equal(countryKey('EU'), 'eu');
    assert.equal(countryKey('Congo'), 'congo', 'the Republic of the Congo and the DR Congo');
    assert.equal(countryKey(''), '');
    assert.equal(countryKey(null), '');
  });

  it('the catalog index keeps a country however the catalog and the filter write it', () => {
    const written = ['KR', 'South Korea', 'Korea', 'kor', 'FR', 'France', 'Atlantis', null];
    const index = new CatalogIndex(
      written.map((country, i) => deriveProduct(rawProduct(`p-${i}`, { name: `Serum ${i}`, country }))),
    );
    const kept = (country: string) =>
      index
        .search('', create(ProductFilterSchema, { country }), undefined, 100)
        .map((entry) => entry.product.product_id);
    for (const asked of ['KR', 'Korea', 'South Korea', 'Republic of Korea']) {
      assert.deepEqual(kept(asked), ['p-0', 'p-1', 'p-2', 'p-3'], asked);
    }
    assert.deepEqual(kept('fra'), ['p-4', 'p-5']);
    assert.deepEqual(kept('atlantis'), ['p-6']);
    assert.deepEqual(kept('Atlantida'), []);
  });
});
