/**
 * MatchService: the five catalog products that best fit a completed scan's concerns. Scores come from the
 * pure matching engine; filters only narrow the candidates. The first successful call consumes the scan's
 * allowance; later calls succeed with no products and `upgrade_required`. A call that fails validation or
 * finds no match at all (no candidate, or none with a positive score: a product scoring 0 or null fits none
 * of the concerns) consumes nothing, so a person whose filters were too narrow can try again, and its
 * match_basis says why (match-basis.ts). A scan with no concern is matched for
 * maintenance (engine/maintenance.ts), scored and explained.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import {
  type MatchService,
  type RecommendProductsRequest,
  type RecommendProductsResponse,
  RecommendProductsResponseSchema,
} from '../../gen/skinmatch/v1/match_pb.ts';
import type { LiveCatalog } from '../catalog/catalog-store.ts';
import type { PlainSql } from '../core/db/plain-sql.ts';
import { authorizeScan } from '../scan/scan-access.ts';
import { serviceError } from '../shared/errors.ts';
import { ANALYSIS_UNAVAILABLE } from '../shared/failure-messages.ts';
import { concernsFromScores } from '../shared/measures.ts';
import { consumeAllowance, INCLUDED_MATCHES, matchesUsed } from './allowance.ts';
import { ENGINE_VERSION } from './engine/index.ts';
import { MATCH_USED, matchBasis, noCandidate, noMatch } from './match-basis.ts';
import { checkFilter } from './match-input.ts';
import { toProductMatch } from './product-message.ts';

export const MAX_PRODUCTS = 5;
export const LIMITATIONS =
  'match_score is a cosmetic fit estimate from 0 to 100: how well a product’s listed ingredients address ' +
  'the concerns seen in this photo. It is not a diagnosis, not medical advice and not a promise of ' +
  'results. Skin changes with light, season and care; patch-test new products.';
export const MORE_IN_APP = 'The skinmatch app shows more matches for this scan and tracks changes over time.';

export interface MatchServiceDeps {
  /** The ORM's pool, for the plain read of the scan (scan-reads.ts) and the allowance (allowance.ts). */
  readonly sql: PlainSql;
  readonly pepper: Buffer;
  readonly catalog: LiveCatalog;
  readonly now?: () => Date;
  /** Runs after the allowance is consumed and before the answer is committed (tests simulate crashes). */
  readonly afterConsume?: () => void | Promise<void>;
}

export class MatchServiceImpl implements ServiceImpl<typeof MatchService> {
  readonly #deps: MatchServiceDeps;
  readonly #now: () => Date;

  constructor(deps: MatchServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  async recommendProducts(
    req: RecommendProductsRequest,
    ctx?: HandlerContext,
  ): Promise<RecommendProductsResponse> {
    const scan = await authorizeScan(this.#deps.sql, { pepper: this.#deps.pepper, now: this.#now }, req);
    const skinType = checkFilter(req.filter);
    if (scan.status === 'awaiting_upload') {
      throw serviceError(
        'scan_not_uploaded',
        'No photo has been uploaded yet: give upload_url to the person.',
      );
    }
    if (scan.status !== 'complete') throw notReady(scan.status, scan.failureReason);
    const { catalog } = this.#deps;
    const concerns = concernsFromScores(scan.scores ?? {});
    const answer = (
      products: RecommendProductsResponse['products'],
      used: number,
      upgradeRequired: boolean,
      why?: string,
    ) =>
      create(RecommendProductsResponseSchema, {
        products,
        scanConcerns: concerns.map((c) => c.name),
        matchBasis: [matchBasis(concerns, skinType, req.filter), why].filter(Boolean).join(' '),
        limitations: LIMITATIONS,
        entitlement: {
          tier: 'free_guest',
          used: BigInt(used),
          included: BigInt(INCLUDED_MATCHES),
          remaining: BigInt(Math.max(0, INCLUDED_MATCHES - used)),
          upgradeRequired,
          moreInApp: MORE_IN_APP,
        },
      });
    if (!catalog.available || catalog.index.size === 0) {
      // A used allowance needs no catalog: the answer is upgrade_required whatever its state (spec rule 2).
      const used = await matchesUsed(this.#deps.sql, scan.id);
      if (used >= INCLUDED_MATCHES) return answer([], used, true, MATCH_USED);
      throw serviceError(
        'catalog_unavailable',
        'The product catalog cannot be used at the moment; try again later.',
      );
    }
    const ranked = catalog.index.recommend(concerns, skinType, req.filter, MAX_PRODUCTS);
    // A product scoring 0 fits none of the scan's concerns (or, for maintenance, has none of its points),
    // and one with no score cannot be judged: neither is a match. Ranked best first, so the positive ones
    // of the best five are all the catalog has when fewer than five are.
    const best = ranked.best.filter(({ score }) => score !== null && score > 0);
    if (best.length === 0) {
      // Nothing to consume, but a used allowance still answers upgrade_required (spec rule 2); while it
      // is there, say which filter left nothing, or that nothing left matches, and that the call may be
      // repeated with other filters.
      const used = await matchesUsed(this.#deps.sql, scan.id);
      if (used >= INCLUDED_MATCHES) return answer([], used, true, MATCH_USED);
      const why =
        ranked.candidates === 0
          ? noCandidate(catalog.index, req.filter)
          : noMatch(ranked.candidates, concerns.length === 0, req.filter);
      return answer([], used, false, why);
    }

    // A caller that is gone — its client gave up, or its deadline passed and the façade already answered
    // `unavailable`, try again — must not spend the scan's one match on an answer nobody receives.
    if (ctx?.signal.aborted) {
      throw new ConnectError(
        'The call was cancelled before products were chosen: nothing consumed.',
        Code.Canceled,
      );
    }
    const consumed = await consumeAllowance(
      this.#deps.sql,
      {
        runId: scan.id,
        productIds: best.map((b) => b.entry.product.product_id),
        engineVersion: ENGINE_VERSION,
        skinType,
      },
      this.#deps.afterConsume,
    );
    if (!consumed) return answer([], INCLUDED_MATCHES, true, MATCH_USED);
    const products = best.map(({ entry, score }) => toProductMatch(entry, score, concerns));
    return answer(products, INCLUDED_MATCHES, false);
  }
}

/**
 * scan_not_ready, saying what get_skin_scan's next_action says for the scan (services/scan/scan-view.ts): a
 * scan failed by our own outage (`analysis_unavailable`) needs the photo sent again, not a new one.
 */
function notReady(status: string, failureReason: string | null | undefined) {
  const why =
    status !== 'failed'
      ? 'poll get_skin_scan'
      : failureReason === ANALYSIS_UNAVAILABLE
        ? 'the service could not analyse the photo, and nothing was wrong with it; give the person ' +
          'upload_url again to send it in a few minutes'
        : 'the photo could not be analysed; ask for a new one';
  return serviceError('scan_not_ready', `The scan is not complete: ${why}.`);
}
