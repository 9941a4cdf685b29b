/**
 * What the service can say about ingredients: every canonical name seen in the catalog or the synonym
 * table, with the concerns it addresses and the caution lists it is on, each with its one-line reason.
 */
import { create } from '@bufbuild/protobuf';
import { type Ingredient, IngredientSchema } from '../../gen/skinmatch/v1/catalog_pb.ts';
import type { CatalogIndex } from './catalog-index.ts';
import { canonicalName, canonicalNames, synonymsOf } from './inci/synonyms.ts';
import { ingredientFacts } from './knowledge/facts.ts';
import { CAUTION_LISTS } from './knowledge/knowledge.ts';

const namesOf = new WeakMap<CatalogIndex, string[]>();

/** Every known canonical ingredient name, sorted; computed once per catalog version. */
export function ingredientNames(catalog: CatalogIndex): string[] {
  let sorted = namesOf.get(catalog);
  if (!sorted) {
    const names = new Set(canonicalNames());
    for (const entry of catalog.entries) for (const i of entry.product.parsed_ingredients) names.add(i.name);
    sorted = [...names].sort();
    namesOf.set(catalog, sorted);
  }
  return sorted;
}

/** The canonical name a query names exactly (a canonical name or any spelling of one), if known. */
export function resolveIngredient(catalog: CatalogIndex, query: string): string | undefined {
  const name = canonicalName(query);
  return ingredientNames(catalog).includes(name) ? name : undefined;
}

export function describeIngredient(name: string): Ingredient {
  const facts = ingredientFacts(name);
  const reasons: string[] = [];
  if (facts.active) reasons.push(facts.active.reason);
  const flags = CAUTION_LISTS.filter((list) => {
    const entry = facts.cautions[list];
    if (entry) reasons.push(entry.reason);
    return entry !== null;
  });
  const concerns = facts.active ? Object.entries(facts.active.concerns) : [];
  return create(IngredientSchema, {
    name,
    synonyms: [...synonymsOf(name)],
    addresses: concerns.map(([concern, evidence]) => ({ concern, evidence })),
    flags,
    reasons,
  });
}
