/**
 * What the knowledge base says about one canonical ingredient name.
 *
 * A catalog of 100 000 products repeats the same few thousand ingredient names, so answers are memoised:
 * the patterns run once per distinct name, not once per product.
 */
import { type Active, CAUTION_LISTS, type CautionList, KNOWLEDGE, type Listed } from './knowledge.ts';

export interface IngredientFacts {
  /** The active this ingredient is, if it addresses any concern. */
  readonly active: Active | null;
  /** For each caution list, the entry that lists this ingredient, or null. */
  readonly cautions: Readonly<Record<CautionList, Listed | null>>;
  /** The barrier-support entry this ingredient belongs to, or null (maintenance match only). */
  readonly barrier: Listed | null;
}

const memo = new Map<string, IngredientFacts>();

export function ingredientFacts(name: string): IngredientFacts {
  const known = memo.get(name);
  if (known !== undefined) return known;
  const facts = factsOf(name);
  memo.set(name, facts);
  return facts;
}

/** The same, not memoised: for names people ask for, which need not be in any catalog. */
export function factsOf(name: string): IngredientFacts {
  const cautions = {} as Record<CautionList, Listed | null>;
  for (const list of CAUTION_LISTS) cautions[list] = KNOWLEDGE.lists[list].find(name);
  return {
    active: KNOWLEDGE.actives.find(name),
    cautions,
    barrier: KNOWLEDGE.barrier.find(name),
  };
}
