/**
 * CatalogService: products and ingredients, read from the live in-memory catalog (the same index
 * recommendations use), a page at a time. search_products pages by a keyset cursor (the last product_id
 * listed, shared/page-token.ts), so products imported or withdrawn between two pages neither repeat nor skip
 * one; the ingredient list, which only changes with the knowledge base, pages by offset.
 */
import { create, toJsonString } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  type CatalogService,
  type GetIngredientRequest,
  GetIngredientResponseSchema,
  type GetProductRequest,
  GetProductResponseSchema,
  type SearchIngredientsRequest,
  SearchIngredientsResponseSchema,
  type SearchProductsRequest,
  SearchProductsResponseSchema,
} from '../../gen/skinmatch/v1/catalog_pb.ts';
import { type ProductFilter, ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { checkFilter } from '../match/match-input.ts';
import { toProductMessage } from '../match/product-message.ts';
import { serviceError } from '../shared/errors.ts';
import { openPageToken, sealPageToken } from '../shared/page-token.ts';
import { characterCount } from '../shared/text.ts';
import type { LiveCatalog } from './catalog-store.ts';
import { describe, resolveIngredient, searchIngredients } from './ingredient-book.ts';
import { listedNames, searchWords } from './product-search.ts';

const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;
const SEARCH_TOKEN = 'search_products page token';
/**
 * The longest product_id, ingredient name and search query asked for, as the tools' schemas bound them.
 * Beyond it nothing can match, a not_found echoing the name could outgrow what a gRPC client takes in its
 * trailers (a 1 MB name made grpc-js reset the stream: INTERNAL instead of an answer), and a search of a
 * 9 MB query held the event loop for 4-7 s.
 */
const MAX_NAME = 200;

export class CatalogServiceImpl implements ServiceImpl<typeof CatalogService> {
  readonly #catalog: LiveCatalog;
  readonly #pepper: Buffer;

  constructor(catalog: LiveCatalog, pepper: Buffer) {
    this.#catalog = catalog;
    this.#pepper = pepper;
  }

  async searchProducts(req: SearchProductsRequest) {
    checkText('query', req.query);
    checkFilter(req.filter);
    const size = pageSize(req.pageSize);
    // A token continues the search it came from: its tag covers the query's words and the filter, so a
    // token sent with another query or filter is refused like a forged one, never read as a position.
    const purpose = `${SEARCH_TOKEN}\0${searchWords(req.query).join(' ')}\0${filterKey(req.filter)}`;
    const after =
      req.pageToken === '' ? undefined : openPageToken(this.#pepper, purpose, req.pageToken).toString('utf8');
    const found = this.#index().search(req.query, req.filter, after, size + 1);
    const last = found.length > size ? found[size - 1] : undefined;
    return create(SearchProductsResponseSchema, {
      products: found.slice(0, size).map((entry) => toProductMessage(entry.product)),
      nextPageToken: last
        ? sealPageToken(this.#pepper, purpose, Buffer.from(last.product.product_id, 'utf8'))
        : '',
    });
  }

  async getProduct(req: GetProductRequest) {
    checkName('product_id', req.productId);
    const entry = this.#index().get(req.productId);
    if (!entry) throw serviceError('not_found', `No product "${req.productId}" in the catalog.`);
    return create(GetProductResponseSchema, { product: toProductMessage(entry.product) });
  }

  /**
   * The ingredient tools read the knowledge base, and know besides the names the catalog's products list
   * (with no facts); they answer from the knowledge base alone while the catalog cannot be used.
   */
  async searchIngredients(req: SearchIngredientsRequest) {
    checkText('query', req.query);
    const found = searchIngredients(req.query, this.#listedNames());
    const { start, end, next } = page(req.pageSize, req.pageToken, found.length);
    return create(SearchIngredientsResponseSchema, {
      ingredients: found.slice(start, end).map(describe),
      nextPageToken: next,
    });
  }

  async getIngredient(req: GetIngredientRequest) {
    checkName('name', req.name);
    const resolved = resolveIngredient(req.name, false, this.#listedNames());
    if (!resolved) throw serviceError('not_found', `No ingredient "${req.name}" is known.`);
    return create(GetIngredientResponseSchema, { ingredient: describe(resolved) });
  }

  /** The ingredient names the catalog's products list; none while the catalog cannot be used. */
  #listedNames(): readonly string[] {
    return this.#catalog.available ? listedNames(this.#catalog.index.entries) : [];
  }

  #index() {
    if (!this.#catalog.available) {
      throw serviceError('catalog_unavailable', 'The product catalog cannot be used at the moment.');
    }
    return this.#catalog.index;
  }
}

function pageSize(requested: number): number {
  // Refused out of range, as ListAccountScans refuses it (and the tools' schemas), never clamped.
  if (requested < 0 || requested > MAX_PAGE) {
    throw serviceError('invalid_input', `page_size must be 0 to ${MAX_PAGE}.`, { field: 'page_size' });
  }
  return requested || DEFAULT_PAGE;
}

function page(requestedSize: number, pageToken: string, total: number) {
  const size = pageSize(requestedSize);
  const start = pageToken === '' ? 0 : Number.parseInt(pageToken, 10);
  if (!Number.isInteger(start) || start < 0 || String(start) !== pageToken.replace(/^$/, '0')) {
    throw serviceError('invalid_input', 'page_token is not one this service issued.', {
      field: 'page_token',
    });
  }
  const end = Math.min(start + size, total);
  return { start, end, next: end < total ? String(end) : '' };
}

/** A filter as the search reads it, for a page token's tag (every field, in the message's order). */
function filterKey(filter: ProductFilter | undefined): string {
  return toJsonString(ProductFilterSchema, filter ?? create(ProductFilterSchema));
}

/** A name looked up: required (the tools' schemas say minLength 1), and bounded as any text asked for. */
function checkName(field: string, value: string): void {
  if (value === '') throw serviceError('invalid_input', `${field} is required.`, { field });
  checkText(field, value);
}

function checkText(field: string, value: string): void {
  // A UTF-16 length within the bound is within it in characters; one over twice the bound is past it.
  if (value.length <= MAX_NAME) return;
  if (value.length > 2 * MAX_NAME || characterCount(value) > MAX_NAME) {
    throw serviceError('invalid_input', `${field} must be at most ${MAX_NAME} characters.`, { field });
  }
}
