/**
 * recommend_products: the spec's input and output schemas to the letter, served by core's MatchService.
 */
import type { Client } from '@connectrpc/connect';
import type { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import {
  FREE_FROM,
  MAX_BRAND,
  MAX_COUNTRY,
  MAX_FREE_FROM,
  PRODUCT_TYPES,
} from '../../services/match/match-input.ts';
import { PRODUCT_MATCH, productMatchJson, strings } from './product-match.ts';
import type { ToolDefinition } from './tool-definition.ts';
import { UUID_PATTERN } from './validate.ts';

const MAX_INTEGER = Number.MAX_SAFE_INTEGER;
const count = (description: string) => ({ type: 'integer', minimum: 0, maximum: MAX_INTEGER, description });

/** The filter arguments recommend_products and search_products share, described once. */
export const FILTER_PROPERTIES = {
  vegan: {
    type: 'boolean',
    description: 'true: only products known to be vegan. false, or left out: no filter.',
  },
  cruelty_free: {
    type: 'boolean',
    description: 'true: only products known to be cruelty-free. false, or left out: no filter.',
  },
  brand: {
    type: 'string',
    maxLength: MAX_BRAND,
    description:
      'Only this brand, compared on its letters and digits: case, accents, punctuation, hyphens, ' +
      'apostrophes, spaces and ™ ® signs aside, & and "and" alike (La Roche Posay and Laroche Posay ' +
      'find La Roche-Posay). Empty or only spaces: no filter.',
  },
  country: {
    type: 'string',
    maxLength: MAX_COUNTRY,
    description:
      'Only products of this country: an ISO 3166-1 code (FR, KR, US, GB; alpha-2 or alpha-3, any ' +
      'case) or a country name in English or the language of a main market (France, South Korea, ' +
      'Korea, USA, U.S., United States, UK, United Kingdom, Deutschland), all read as the same ' +
      'country; other values must equal the catalog’s value (case-insensitive). Empty or only spaces: no ' +
      'filter.',
  },
} as const;

/**
 * The product_type and free_from filters recommend_products and search_products share. An agent that reads
 * only "products of this type" and gets a `face oil` for moisturizer takes the filter for broken: it says
 * which retailer words each kind finds (docs/catalog-format.md, services/catalog/product-kind.ts).
 */
export const KIND_PROPERTIES = {
  product_type: {
    type: 'string',
    enum: [...PRODUCT_TYPES],
    description:
      'Only products of this kind. Each kind also finds the types retailers write for it, in any case or ' +
      'spelling: moisturizer finds Face Cream, Lotion, Balm and Face Oil; serum finds Essence, Ampoule and ' +
      'Booster; toner finds a face Mist; sunscreen finds Sun Cream and types naming an SPF; eye_care finds ' +
      'Eye Cream and Eye Serum; a product with no type is found by the kind its name says. Each product’s ' +
      'product_type is shown as the catalog gives it (face oil, essence, mist), not as this value.',
  },
  free_from: {
    type: 'array',
    items: { type: 'string', enum: [...FREE_FROM] },
    maxItems: MAX_FREE_FROM,
    description:
      'Only products whose ingredient list shows them free of each of these; a product whose list cannot ' +
      'tell (missing, cut off, not a list) is left out.',
  },
} as const;

/** A tool's filter arguments (checked against its inputSchema) as core's ProductFilter; absent ones filter nothing. */
export function productFilter(args: Record<string, unknown>) {
  return {
    productType: (args.product_type as string) ?? '',
    skinType: (args.skin_type as string) ?? '',
    freeFrom: (args.free_from as string[]) ?? [],
    vegan: args.vegan as boolean | undefined,
    crueltyFree: args.cruelty_free as boolean | undefined,
    brand: (args.brand as string) ?? '',
    country: (args.country as string) ?? '',
  };
}

export function matchTools(matches: Client<typeof MatchService>): ToolDefinition[] {
  return [
    {
      name: 'recommend_products',
      title: 'Recommend products for a scan',
      description:
        'Matches catalog skincare products to a completed scan (next_action recommend_products) and returns ' +
        'up to 5, best first, with a cosmetic fit estimate 0–100; only products that score above 0 are ' +
        'matches, so fewer, or none, may come back. Call it once per scan: the free allowance ' +
        'is one match; after it the call succeeds with no products and entitlement.upgrade_required true — ' +
        'do not start another scan to get more; the products that one match returned stay readable in ' +
        'get_skin_scan’s used_match, so show those again if the first answer never reached you. ' +
        'product_type, free_from, vegan, cruelty_free, brand and country only narrow the candidates and ' +
        'never change a score. Pass skin_type only when the person stated it; never infer it from the scan: ' +
        'it keeps only products suited to that skin type, and it changes scores: with dry, products holding ' +
        'a drying alcohol score lower. Share match_basis and ' +
        'limitations with the person: the score is not a diagnosis or a promise of results. An answer with ' +
        'no products and upgrade_required false used nothing: match_basis says which filter left nothing; ' +
        'call again with other or fewer filters. Common errors: scan_required (run_id missing), ' +
        'scan_not_ready (not complete: follow get_skin_scan’s next_action), scan_not_uploaded (no photo yet: ' +
        'give upload_url to the person), not_found (wrong token, or the scan is deleted or expired), ' +
        'catalog_unavailable (try again in a few minutes), rate_limited (wait retry_after_seconds).',
      inputSchema: {
        type: 'object',
        properties: {
          run_id: {
            type: 'string',
            pattern: UUID_PATTERN,
            description: 'The run_id that start_skin_scan returned.',
          },
          access_token: {
            type: 'string',
            pattern: '^[a-f0-9]{64}$',
            description: 'The scan’s access_token. A secret: never show it to the person.',
          },
          product_type: KIND_PROPERTIES.product_type,
          skin_type: {
            type: 'string',
            enum: ['dry', 'oily', 'combination', 'normal'],
            description:
              'The skin type the person stated; never infer it from the scan. Keeps only products suited ' +
              'to it (as the catalog declares, or as derived from the formula), and changes scores: with ' +
              'dry, products holding a drying alcohol score lower.',
          },
          free_from: KIND_PROPERTIES.free_from,
          ...FILTER_PROPERTIES,
        },
        required: ['run_id', 'access_token'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          products: { type: 'array', items: PRODUCT_MATCH, maxItems: 5 },
          scan_concerns: strings(6, 'Concerns derived from the scan, worst first.'),
          match_basis: {
            type: 'string',
            description:
              'What the scores were computed against and which filters were applied; with no products, why.',
          },
          entitlement: {
            type: 'object',
            properties: {
              tier: { type: 'string', const: 'free_guest' },
              used: count('Matches consumed for this scan.'),
              included: count('Matches allowed for this scan.'),
              remaining: count('Matches left for this scan.'),
              upgrade_required: {
                type: 'boolean',
                description: 'True when the allowance is exhausted and no products are returned.',
              },
              more_in_app: {
                type: 'string',
                description: 'Text pointing the person to the consumer app for more matches.',
              },
            },
            required: ['tier', 'used', 'included', 'remaining', 'upgrade_required', 'more_in_app'],
            additionalProperties: false,
          },
          limitations: { type: 'string', description: 'Caveats on interpreting the percentage.' },
        },
        required: ['products', 'scan_concerns', 'match_basis', 'entitlement', 'limitations'],
        additionalProperties: false,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      },
      // Cancelled with the call: core then consumes nothing for an answer nobody receives (match-service.ts).
      call: async (args, caller) => {
        const res = await matches.recommendProducts(
          {
            runId: String(args.run_id),
            accessToken: String(args.access_token),
            filter: productFilter(args),
          },
          { signal: caller.signal },
        );
        const e = res.entitlement!;
        return {
          products: res.products.map(productMatchJson),
          scan_concerns: res.scanConcerns,
          match_basis: res.matchBasis,
          entitlement: {
            tier: e.tier,
            used: Number(e.used),
            included: Number(e.included),
            remaining: Number(e.remaining),
            upgrade_required: e.upgradeRequired,
            more_in_app: e.moreInApp,
          },
          limitations: res.limitations,
        };
      },
    },
  ];
}
