/**
 * The floor of the GetScan benchmark: a bare connect-node HTTP/2 server whose GetScan does the same
 * primary-key SELECT with `pg` (a pool as large as core's) and returns the same message, written by hand
 * with nothing between the handler and the driver: no ORM, no interceptor, no token check (the HMAC
 * costs about 2 µs). It serves the database of DATABASE_URL and sends its port to the parent process.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import pg from 'pg';
import { GetScanResponseSchema, ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { NextAction, ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const base = 'http://localhost';
const STATUS: Record<string, [ScanStatus, NextAction, number]> = {
  awaiting_upload: [ScanStatus.AWAITING_UPLOAD, NextAction.SHARE_UPLOAD_URL, 5],
  queued: [ScanStatus.QUEUED, NextAction.POLL, 2],
  analyzing: [ScanStatus.ANALYZING, NextAction.POLL, 1],
  complete: [ScanStatus.COMPLETE, NextAction.RECOMMEND_PRODUCTS, 0],
  failed: [ScanStatus.FAILED, NextAction.ASK_PERSON_TO_RETAKE, 5],
};

const handler = connectNodeAdapter({
  routes: (router) =>
    router.service(ScanService, {
      async getScan(req) {
        const { rows } = await pool.query({
          name: 'bare_scan_by_id',
          text: 'select * from scans where id = $1',
          values: [req.runId],
        });
        const row = rows[0];
        if (!row) throw new ConnectError('not found', Code.NotFound);
        const [status, nextAction, retryAfterSeconds] = STATUS[row.status]!;
        return create(GetScanResponseSchema, {
          scan: {
            runId: row.id,
            status,
            nextAction,
            retryAfterSeconds,
            progress: row.progress,
            stage: row.stage,
            failureReason: row.failure_reason ?? '',
            uploadUrl: `${base}/scan/${row.id}`,
            saveUrl: row.status === 'complete' && row.account_id === null ? `${base}/save/${row.id}` : '',
            scores: Object.entries(row.scores ?? {}).map(([measure, score]) => ({
              measure,
              score: score as number,
            })),
            concerns: row.concerns ?? [],
            createdAt: timestampFromDate(row.created_at),
            updatedAt: timestampFromDate(row.updated_at),
            expiresAt: timestampFromDate(row.expires_at),
            completedAt: row.completed_at ? timestampFromDate(row.completed_at) : undefined,
          },
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
