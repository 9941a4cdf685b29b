/**
 * Products stored with another knowledge base's derivation. An import stores each product derived, and a
 * load reads that as it is, so after an upgrade of the knowledge base (a misread label shape mended, an
 * attribute found unknown) a catalog imported before it would still be served as the old one read it:
 * `fragrance_free: true` on a list now known to name fragrance, while `match_basis` names the new version.
 * A load derives such products afresh from what they store, in memory; an import stores the result.
 */
import type { DerivedProduct, RawProduct } from './derive.ts';
import { createDeriver } from './formula-memo.ts';
import { KB_VERSION } from './knowledge/knowledge.ts';

export interface CurrentDerivation {
  readonly products: DerivedProduct[];
  /** How many products each older knowledge version had derived; empty when all were current. */
  readonly stale: Readonly<Record<string, number>>;
}

/** Products derived between two turns of the event loop: requests go on being answered meanwhile. */
const TURN = 1000;

/**
 * The products as this knowledge base derives them; a product already derived with it is kept as it is.
 * Deriving 100 000 stale products takes 0.4 s (formulas shared, as catalogs share them) to 4 s (every list
 * distinct), once per load until the catalog is imported again; a current catalog costs one pass.
 */
export async function currentDerivation(products: DerivedProduct[]): Promise<CurrentDerivation> {
  const stale: Record<string, number> = {};
  let derive: ((raw: RawProduct) => DerivedProduct) | undefined;
  let current: DerivedProduct[] | undefined;
  let derived = 0;
  for (let i = 0; i < products.length; i++) {
    const product = products[i]!;
    if (product.kb_version === KB_VERSION) continue;
    const version = String(product.kb_version);
    stale[version] = (stale[version] ?? 0) + 1;
    if (++derived % TURN === 0) await new Promise(setImmediate);
    derive ??= createDeriver();
    current ??= products.slice();
    current[i] = derive(storedRecord(product));
  }
  return { products: current ?? products, stale };
}

/**
 * The record a derived product was derived from: a derived product keeps every field of its record but
 * the declared skin types, which it keeps as read when the source declared any (unknown words were never
 * kept, and declared nothing).
 */
export function storedRecord(product: DerivedProduct): RawProduct {
  const declared = product.skin_types_source === 'declared' ? [...product.skin_types] : null;
  return {
    product_id: product.product_id,
    name: product.name,
    brand: product.brand,
    product_type: product.product_type,
    country: product.country,
    image_url: product.image_url,
    product_url: product.product_url,
    buy_url: product.buy_url,
    ingredients: product.ingredients,
    skin_types: declared,
    vegan: product.vegan,
    cruelty_free: product.cruelty_free,
    ...(product.demo === undefined ? {} : { demo: product.demo }),
  };
}
