/**
 * The pods' writable /tmp (an emptyDir with a size limit) as the chart README's operator commands use it: a
 * catalog file is copied into a core pod's /tmp and imported from there. Past its limit the kubelet evicts
 * the pod, so the default limit must hold the catalog the default sizing is for (100 000 products).
 */
import assert from 'node:assert/strict';
import { generateCatalog } from '../bench/generated-catalog.ts';
import { find, render } from '../support/helm.ts';
import { PRODUCTION, podSpec } from './render-support.ts';

const UNITS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };

function bytes(quantity: string): number {
  const [, digits, unit] = /^([0-9]+)(Ki|Mi|Gi)$/.exec(quantity) ?? [];
  assert.ok(digits && unit, `a quantity in Ki, Mi or Gi: ${quantity}`);
  return Number(digits) * UNITS[unit]!;
}

describe('helm chart render: the pods’ /tmp', function () {
  this.timeout(60_000);

  it('holds a catalog file of 100 000 products with their links, as the README has operators copy in', () => {
    const core = podSpec(find(render(PRODUCTION), 'Deployment', 'rel-skinmatch-core'));
    const tmp = core.volumes.find((v: { name: string }) => v.name === 'tmp');
    // The demo catalog's records (their links null) given a shop's links, as real exports carry them.
    const shop = 'https://shop.example.com';
    const file = generateCatalog(100_000, true)
      .map((p) =>
        JSON.stringify({
          ...p,
          image_url: `https://cdn.shopify.com/s/files/1/0123/4567/8901/files/${p.product_id}-front.jpg?v=1732700000`,
          product_url: `${shop}/products/${p.product_id}`,
          buy_url: `${shop}/cart/add?id=${p.product_id}&quantity=1`,
        }),
      )
      .join('\n');
    // 63 MiB (65.5 MB), 98% of the 64Mi limit there was; with room for twice that, as real ingredient lists run longer than the demo's (up to
    // ~3000 characters against ~300): past the limit, the copy gets the core pod evicted.
    const size = Buffer.byteLength(file);
    assert.ok(size * 2 <= bytes(tmp.emptyDir.sizeLimit), `${size} bytes in ${tmp.emptyDir.sizeLimit}`);
  });
});
