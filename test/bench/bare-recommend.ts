/**
 * The floor of the RecommendProducts benchmark: a bare connect-node HTTP/2 server whose RecommendProducts
 * is the in-memory pass (the same CatalogIndex) plus the same two statements written by hand with `pg`:
 * the scan read, and the allowance's insert, which is its own transaction (two round trips in all, as core
 * sends them). No ORM, no interceptor, no token check, no validation; the same five products in the same message. It loads the
 * catalog of DATABASE_URL once and sends its port to the parent process.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create } from '@bufbuild/protobuf';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import pg from 'pg';
import { MatchService, RecommendProductsResponseSchema } from '../../gen/skinmatch/v1/match_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import type { DerivedProduct } from '../../services/catalog/derive.ts';
import { ENGINE_VERSION, matchesConcerns } from '../../services/match/engine/index.ts';
import { toProductMessage } from '../../services/match/product-message.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import { COMPRESS_MIN_BYTES } from '../../services/shared/server.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const { rows: products } = await pool.query<{ derived: DerivedProduct }>('select derived from products');
const index = new CatalogIndex(products.map((row) => row.derived));

const handler = connectNodeAdapter({
  compressMinBytes: COMPRESS_MIN_BYTES, // as core's server
  routes: (router) =>
    router.service(MatchService, {
      async recommendProducts(req) {
        const { rows } = await pool.query({
          name: 'bare_scan_by_id',
          text: 'select * from scans where id = $1',
          values: [req.runId],
        });
        const concerns = concernsFromScores(rows[0].scores);
        const { best } = index.recommend(concerns, null, req.filter, 5);
        const consumed = await pool.query({
          name: 'bare_consume',
          text: `insert into scan_matches (run_id, consumed_at, product_ids, engine_version, skin_type)
            values ($1, now(), $2, $3, $4) on conflict (run_id) do nothing returning run_id`,
          values: [
            req.runId,
            JSON.stringify(best.map((b) => b.entry.product.product_id)),
            ENGINE_VERSION,
            null,
          ],
        });
        return create(RecommendProductsResponseSchema, {
          products:
            consumed.rows.length !== 1
              ? []
              : best.map(({ entry, score }) => ({
                  product: toProductMessage(entry.product),
                  matchScore: score ?? undefined,
                  matchesConcerns: matchesConcerns(concerns, entry.engine),
                })),
          scanConcerns: concerns.map((c) => c.name),
          entitlement: { tier: 'free_guest', used: 1n, included: 1n, remaining: 0n },
        });
      },
    }),
});
const server = http2.createServer(handler);
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.once('SIGTERM', () => {
  server.close();
  void pool.end();
  process.exit(0);
});
