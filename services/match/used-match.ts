/**
 * A scan's used match as get_skin_scan shows it: the products recommend_products returned when it used the
 * scan's one match, so that an answer lost on its way (the agent cancelled the call, the connection dropped
 * after core committed, a new conversation about the same scan) is never the person's products lost for
 * good: later recommend_products calls answer none (spec rule 2) and say where these are (match-basis.ts).
 * Only the product ids are stored with the allowance (allowance.ts); each is scored again here by the same
 * engine, with the scan's concerns and the skin type stated then, to the items that call returned. A product
 * withdrawn from the catalog since is left out, and match_basis says so.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type UsedMatch, UsedMatchSchema } from '../../gen/skinmatch/v1/match_pb.ts';
import type { LiveCatalog } from '../catalog/catalog-store.ts';
import type { SkinType } from '../catalog/derive.ts';
import type { Concern } from '../shared/measures.ts';
import type { StoredMatch } from './allowance.ts';
import { ENGINE_VERSION, prepareScan, scorePrepared } from './engine/index.ts';
import { scoredAgainst } from './match-basis.ts';
import { toProductMatch } from './product-message.ts';

export function usedMatch(
  stored: StoredMatch,
  concerns: readonly Concern[],
  catalog: LiveCatalog,
): UsedMatch {
  const skinType = stored.skinType as SkinType | null;
  const ids = stored.productIds;
  const basis = [scoredAgainst(concerns, skinType)];
  if (skinType !== null && concerns.length > 0) basis.push(`The person stated ${skinType} skin.`);
  if (stored.engineVersion !== ENGINE_VERSION) {
    basis.push(`The match was made by engine ${stored.engineVersion}; scores are as this engine gives them.`);
  }
  // recommend_products answers catalog_unavailable in the same state: nothing to score against yet.
  if (!catalog.available || catalog.index.size === 0) {
    basis.push(unreadable(ids.length));
    return message(stored, [], ids.length, basis);
  }
  const scan = prepareScan(concerns, skinType);
  const products = [];
  for (const id of ids) {
    const entry = catalog.index.get(id);
    if (!entry) continue;
    products.push(toProductMatch(entry, scorePrepared(scan, entry.engine), concerns));
  }
  const leftOut = ids.length - products.length;
  if (leftOut > 0) basis.push(withdrawn(leftOut, ids.length));
  return message(stored, products, leftOut, basis);
}

function message(
  stored: StoredMatch,
  products: UsedMatch['products'],
  leftOut: number,
  basis: readonly string[],
): UsedMatch {
  return create(UsedMatchSchema, {
    usedAt: timestampFromDate(stored.usedAt),
    products,
    leftOut,
    matchBasis: basis.join(' '),
  });
}

function withdrawn(leftOut: number, returned: number): string {
  const which = leftOut === 1 ? 'One product' : `${leftOut} products`;
  const has = leftOut === 1 ? 'has' : 'have';
  return `${which} of the ${returned} this match returned ${has} been withdrawn from the catalog since and ${leftOut === 1 ? 'is' : 'are'} left out.`;
}

function unreadable(returned: number): string {
  return (
    `The product catalog cannot be read at the moment, so ${returned === 1 ? 'the product' : `the ${returned} products`} ` +
    'this match returned are not shown: read the scan again in a minute to see them.'
  );
}
