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
      'find La Roche-Posay).',
  },
  country: {
    type: 'string',
    maxLength: MAX_COUNTRY,
    description:
      'Only products of this country: an ISO 3166-1 code (FR, KR, US, GB; alpha-2 or alpha-3, any ' +
      'case) or a country name in English or the language of a main market (France, South Korea, ' +
      'Korea, USA, U.S., United States, UK, United Kingdom, Deutschland), all read as the same ' +
      'country; other values must equal the catalog’s value (case-insensitive).',
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
        'get_skin_scan’s used_match, so show those again if the first answer never reached you. Pass skin_type only when the person stated it; never infer ' +
        'it from the scan. Filters narrow the candidates and never change a score. Share match_basis and ' +
        'limitations with the person: the score is not a diagnosis or a promise of results. An answer with ' +
        'no products and upgrade_required false used nothing: match_basis says which filter left nothing; ' +
        'call again with other or fewer filters.',
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
          product_type: {
            type: 'string',
            enum: [...PRODUCT_TYPES],
            description: 'Only products of this type.',
          },
          skin_type: {
            type: 'string',
            enum: ['dry', 'oily', 'combination', 'normal'],
            description: 'The skin type the person stated. Never infer it from the scan.',
          },
          free_from: {
            type: 'array',
            items: { type: 'string', enum: [...FREE_FROM] },
            maxItems: MAX_FREE_FROM,
            description: 'Only products free of each of these.',
          },
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
              more_in_app: { type: 'string' },
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
