/** A derived catalog product as the Product message that CatalogService and MatchService return. */
import { create } from '@bufbuild/protobuf';
import { type Product, ProductSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { type ProductMatch, ProductMatchSchema } from '../../gen/skinmatch/v1/match_pb.ts';
import type { CatalogEntry } from '../catalog/catalog-index.ts';
import { type DerivedProduct, MAX_TARGETS } from '../catalog/derive.ts';
import type { Concern } from '../shared/measures.ts';
import { matchesConcerns } from './engine/index.ts';

/**
 * One product match item, as recommend_products answers it and get_skin_scan's used_match shows it again
 * (used-match.ts): the same builder, so the two are the same items.
 */
export function toProductMatch(
  entry: CatalogEntry,
  score: number | null,
  concerns: readonly Concern[],
): ProductMatch {
  const matched = matchesConcerns(concerns, entry.engine);
  const product = toProductMessage(entry.product);
  product.targets = shownTargets(product.targets, matched);
  return create(ProductMatchSchema, { product, matchScore: score ?? undefined, matchesConcerns: matched });
}

/**
 * A product addressing more concerns than `targets` holds (MAX_TARGETS, the strongest) may match a scan's
 * concern past them: the item's targets then name the matched concerns first, so that it never says it
 * matches what it does not target. Otherwise the product's own targets, as the catalog tools show them.
 */
function shownTargets(targets: readonly string[], matched: readonly string[]): string[] {
  if (matched.every((concern) => targets.includes(concern))) return [...targets];
  const others = targets.filter((target) => !matched.includes(target));
  return [...matched, ...others].slice(0, MAX_TARGETS);
}

export function toProductMessage(product: DerivedProduct): Product {
  const optional = (value: string | null) => value ?? undefined;
  const flag = (value: boolean | null) => value ?? undefined;
  return create(ProductSchema, {
    productId: product.product_id,
    name: product.name,
    brand: optional(product.brand),
    productType: optional(product.product_type),
    country: optional(product.country),
    imageUrl: optional(product.image_url),
    productUrl: optional(product.product_url),
    buyUrl: optional(product.buy_url),
    ingredientsText: product.ingredients ?? '',
    ingredients: product.parsed_ingredients.map((ingredient) => ingredient.name),
    skinTypes: [...product.skin_types],
    targets: [...product.targets],
    keyIngredients: [...product.key_ingredients],
    attributes: {
      vegan: flag(product.attributes.vegan),
      crueltyFree: flag(product.attributes.cruelty_free),
      fragranceFree: flag(product.attributes.fragrance_free),
      alcoholFree: flag(product.attributes.alcohol_free),
      fungalAcneSafe: flag(product.attributes.fungal_acne_safe),
    },
    flags: [...product.flags],
    knowledgeVersion: product.kb_version,
    demo: product.demo === true,
  });
}
