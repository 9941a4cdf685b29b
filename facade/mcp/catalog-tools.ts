/**
 * The catalog tools on /mcp/account (scope catalog:read): search and read products and ingredients.
 * Each is one Connect call to core's CatalogService; all are read-only.
 */
import type { Client } from '@connectrpc/connect';
import type { CatalogService, Ingredient } from '../../gen/skinmatch/v1/catalog_pb.ts';
import type { Product } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { FILTER_PROPERTIES, KIND_PROPERTIES, productFilter } from './match-tools.ts';
import { nullable, PRODUCT_TYPE_SHOWN } from './product-match.ts';
import type { ToolDefinition } from './tool-definition.ts';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const strings = { type: 'array', items: { type: 'string' } } as const;
const PAGE = {
  page_size: { type: 'integer', minimum: 1, maximum: 100, description: 'At most this many (default 20).' },
  page_token: {
    type: 'string',
    minLength: 1,
    maxLength: 20,
    description: 'The next_page_token of the previous page.',
  },
} as const;

const PRODUCT = {
  type: 'object',
  properties: {
    product_id: { type: 'string' },
    name: { type: 'string' },
    brand: nullable('string'),
    product_type: nullable('string', { description: PRODUCT_TYPE_SHOWN }),
    country: nullable('string'),
    image_url: nullable('string', { format: 'uri' }),
    product_url: nullable('string', { format: 'uri' }),
    buy_url: nullable('string', { format: 'uri' }),
    ingredients: { ...strings, description: 'The INCI list as parsed, in label order.' },
    skin_types: { ...strings, description: 'Skin types the product is declared or derived suitable for.' },
    targets: { ...strings, description: 'What the formulation is designed to address.' },
    key_ingredients: { ...strings, description: 'The actives behind its targets.' },
    attributes: {
      type: 'object',
      properties: Object.fromEntries(
        ['vegan', 'cruelty_free', 'fragrance_free', 'alcohol_free', 'fungal_acne_safe'].map((k) => [
          k,
          nullable('boolean'),
        ]),
      ),
      required: ['vegan', 'cruelty_free', 'fragrance_free', 'alcohol_free', 'fungal_acne_safe'],
      additionalProperties: false,
    },
    flags: { ...strings, description: 'Caution lists its ingredients are on.' },
    demo: { type: 'boolean', description: 'True for the fictional demo catalog.' },
  },
  required: [
    'product_id',
    'name',
    'brand',
    'product_type',
    'country',
    'ingredients',
    'targets',
    'attributes',
  ],
  additionalProperties: false,
} as const;

const INGREDIENT = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'Canonical name, or the name of a group.' },
    synonyms: { ...strings, description: 'Other names labels use for it (for a group: other words for it).' },
    addresses: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          concern: { type: 'string' },
          evidence: {
            type: 'integer',
            minimum: 1,
            maximum: 3,
            description: '1 limited, 2 moderate, 3 strong.',
          },
        },
        required: ['concern', 'evidence'],
        additionalProperties: false,
      },
    },
    flags: { ...strings, description: 'Caution lists it is on (for a group: every member is).' },
    reasons: {
      ...strings,
      description:
        "One line per entry: the active's, each flag's, then barrier support's; a group's says what it covers.",
    },
    members: {
      ...strings,
      description:
        'For a group (ceramides, bha, cica, green tea): the canonical names and name patterns it covers, ' +
        '"*" standing for any words; empty for one ingredient.',
    },
  },
  required: ['name', 'synonyms', 'addresses', 'flags', 'reasons', 'members'],
  additionalProperties: false,
} as const;

const page = (key: string, items: object) => ({
  type: 'object' as const,
  properties: { [key]: { type: 'array', items }, next_page_token: { type: 'string' } },
  required: [key],
  additionalProperties: false,
});

export function catalogTools(catalog: Client<typeof CatalogService>): ToolDefinition[] {
  return [
    {
      name: 'search_products',
      title: 'Search products',
      description:
        'Searches the product catalog by words of the name, brand or ingredient list (however accents, width ' +
        'and case are written), with optional filters, ordered by product_id, a page at a time. Words that ' +
        'name an ingredient or group of the knowledge base also find the products listing it under any name ' +
        "(vitamin c: ascorbic acid; hyaluronic acid: sodium hyaluronate; bha: salicylic acid, ...). A page's " +
        'next_page_token continues only the same query and filters. No scores: use recommend_products to ' +
        'match a scan.',
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            maxLength: 200,
            description: 'Words to look for; empty lists everything.',
          },
          ...KIND_PROPERTIES,
          ...FILTER_PROPERTIES,
          ...PAGE,
          // A keyset cursor carrying a product_id (up to 200 characters, 600 UTF-8 bytes) and its tag.
          page_token: {
            ...PAGE.page_token,
            maxLength: 1024,
            description: 'The next_page_token of the previous page, sent with the same query and filters.',
          },
        },
        additionalProperties: false,
      },
      outputSchema: page('products', PRODUCT),
      annotations: READ_ONLY,
      scope: 'catalog:read',
      call: async (args) => {
        const res = await catalog.searchProducts({
          query: (args.query as string) ?? '',
          filter: productFilter(args),
          pageSize: (args.page_size as number) ?? 0,
          pageToken: (args.page_token as string) ?? '',
        });
        return withNext({ products: res.products.map(productJson) }, res.nextPageToken);
      },
    },
    {
      name: 'get_product',
      title: 'Read a product',
      description: 'Reads one catalog product by product_id: its ingredients, targets, attributes and links.',
      inputSchema: {
        type: 'object',
        properties: {
          product_id: {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            description: 'A product_id as search_products or recommend_products gave it.',
          },
        },
        required: ['product_id'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { product: PRODUCT },
        required: ['product'],
        additionalProperties: false,
      },
      annotations: READ_ONLY,
      scope: 'catalog:read',
      call: async (args) => ({
        product: productJson((await catalog.getProduct({ productId: String(args.product_id) })).product!),
      }),
    },
    {
      name: 'search_ingredients',
      title: 'Search ingredients',
      description:
        'Searches the ingredient knowledge base: every ingredient and group one of whose names (canonical ' +
        'name, synonym, common misspelling, group word) contains the query, ignoring case, accents and runs ' +
        'of spaces; returns canonical names, sorted. Names that only a pattern of the knowledge base covers ' +
        '(sd alcohol 40, jojoba seed oil) are listed only where a catalog product lists them; ask ' +
        'get_ingredient for the others. Names the catalog lists that the knowledge base says nothing of ' +
        'come after it, with no facts.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', maxLength: 200, description: 'Part of a name; empty lists everything.' },
          ...PAGE,
        },
        additionalProperties: false,
      },
      outputSchema: page('ingredients', INGREDIENT),
      annotations: READ_ONLY,
      scope: 'catalog:read',
      call: async (args) => {
        const res = await catalog.searchIngredients({
          query: (args.query as string) ?? '',
          pageSize: (args.page_size as number) ?? 0,
          pageToken: (args.page_token as string) ?? '',
        });
        return withNext({ ingredients: res.ingredients.map(ingredientJson) }, res.nextPageToken);
      },
    },
    {
      name: 'get_ingredient',
      title: 'Read an ingredient',
      description:
        'Reads what the knowledge base says about one ingredient, named as a label prints it (canonical ' +
        'name, synonym or common misspelling; percentages and trademark signs are ignored: "Salicylic Acid ' +
        '2%"): the concerns it addresses with the strength of evidence, caution lists, and the reason for ' +
        'each entry. A group word (bha, aha, peptides, ceramides, cica) answers the group with its members. ' +
        'The answer does not depend on the catalog; not_found when the knowledge base says nothing of it.',
      inputSchema: {
        type: 'object',
        properties: {
          name: {
            type: 'string',
            minLength: 1,
            maxLength: 200,
            description: 'An ingredient as a label prints it, or a group word.',
          },
        },
        required: ['name'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: { ingredient: INGREDIENT },
        required: ['ingredient'],
        additionalProperties: false,
      },
      annotations: READ_ONLY,
      scope: 'catalog:read',
      call: async (args) => ({
        ingredient: ingredientJson((await catalog.getIngredient({ name: String(args.name) })).ingredient!),
      }),
    },
  ];
}

function withNext(body: Record<string, unknown>, next: string): Record<string, unknown> {
  return next ? { ...body, next_page_token: next } : body;
}

function productJson(p: Product): Record<string, unknown> {
  const a = p.attributes;
  return {
    product_id: p.productId,
    name: p.name,
    brand: p.brand ?? null,
    product_type: p.productType ?? null,
    country: p.country ?? null,
    image_url: p.imageUrl ?? null,
    product_url: p.productUrl ?? null,
    buy_url: p.buyUrl ?? null,
    ingredients: p.ingredients,
    skin_types: p.skinTypes,
    targets: p.targets,
    key_ingredients: p.keyIngredients,
    attributes: {
      vegan: a?.vegan ?? null,
      cruelty_free: a?.crueltyFree ?? null,
      fragrance_free: a?.fragranceFree ?? null,
      alcohol_free: a?.alcoholFree ?? null,
      fungal_acne_safe: a?.fungalAcneSafe ?? null,
    },
    flags: p.flags,
    demo: p.demo,
  };
}

function ingredientJson(i: Ingredient): Record<string, unknown> {
  return {
    name: i.name,
    synonyms: i.synonyms,
    addresses: i.addresses.map((a) => ({ concern: a.concern, evidence: a.evidence })),
    flags: i.flags,
    reasons: i.reasons,
    members: i.members,
  };
}
