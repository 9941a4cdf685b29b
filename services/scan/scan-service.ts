/**
 * ScanService: starting, reading, watching and deleting scans. Every call on an existing scan proves the
 * token first (scan-access.ts).
 */
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  DeleteScanResponseSchema,
  GetScanResponseSchema,
  type ScanService,
  StartScanResponseSchema,
  type WatchScanResponse,
  WatchScanResponseSchema,
} from '../../gen/skinmatch/v1/scan_pb.ts';
import type { Orm } from '../core/db/orm.ts';
import type { PlainSql } from '../core/db/plain-sql.ts';
import { Scan } from '../core/db/scan-entity.ts';
import { INCLUDED_MATCHES, matchesUsed } from '../match/allowance.ts';
import { NOT_FOUND_MESSAGE, serviceError } from '../shared/errors.ts';
import type { Notifications } from '../shared/notifications.ts';
import { admissionsEnabled } from './admissions.ts';
import { authorizeScan } from './scan-access.ts';
import { deleteOneScan } from './scan-deletion.ts';
import { checkSource, type ScanIdentity } from './scan-input.ts';
import type { ScanRecord } from './scan-reads.ts';
import { toScanMessage, uploadUrl } from './scan-view.ts';
import { scanChanges } from './scan-watch.ts';
import { issueToken } from './token.ts';

export const GUEST_TOKEN_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export interface ScanServiceDeps {
  readonly orm: Orm;
  /** The ORM's pool, for the plain read of a scan by id (scan-reads.ts). */
  readonly sql: PlainSql;
  readonly pepper: Buffer;
  readonly publicBaseUrl: string;
  readonly notifications: Notifications;
  readonly now?: () => Date /** Aborted when the process stops taking work: watches end (scan-watch.ts). */;
  readonly stopping?: AbortSignal;
}

export class ScanServiceImpl implements ServiceImpl<typeof ScanService> {
  readonly #deps: ScanServiceDeps;
  readonly #now: () => Date;

  constructor(deps: ScanServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  async startScan(req: { source: string }) {
    return this.startScanFor(req.source, null);
  }

  /** Starts a scan, owned by an account (AccountService) or by no one (a guest scan). */
  async startScanFor(sourceText: string, accountId: string | null) {
    const source = checkSource(sourceText);
    const em = this.#deps.orm.em.fork();
    if (!(await admissionsEnabled(em))) {
      throw serviceError('admissions_paused', 'New scans are paused for now; try again later.');
    }
    const { token, hash } = issueToken(this.#deps.pepper);
    const now = this.#now();
    const scan = em.create(Scan, {
      id: randomUUID(),
      tokenHash: hash,
      source,
      createdAt: now,
      updatedAt: now,
      expiresAt: new Date(now.getTime() + GUEST_TOKEN_LIFETIME_MS),
      accountId,
    });
    await em.flush();
    return create(StartScanResponseSchema, {
      runId: scan.id,
      accessToken: token,
      uploadUrl: uploadUrl(this.#deps.publicBaseUrl, scan.id),
      scan: await this.#message(scan),
    });
  }

  async getScan(req: ScanIdentity) {
    const scan = await this.#authorize(req);
    return create(GetScanResponseSchema, { scan: await this.#message(scan) });
  }

  async deleteScan(req: ScanIdentity) {
    const scan = await this.#authorize(req);
    await deleteOneScan(this.#deps.orm.em.fork(), scan.id);
    return create(DeleteScanResponseSchema, { runId: scan.id, deleted: true });
  }

  async *watchScan(req: ScanIdentity, ctx: HandlerContext): AsyncGenerator<WatchScanResponse> {
    const first = await this.#authorize(req);
    const watch = { ...this.#deps, now: this.#now };
    for await (const scan of scanChanges(watch, first, ctx.signal, NOT_FOUND_MESSAGE)) {
      yield create(WatchScanResponseSchema, { scan: await this.#message(scan) });
    }
  }

  /** The scan as the holder of its token sees it: recommend_products only while its one match is unused. */
  async #message(scan: ScanRecord) {
    const canMatch =
      scan.status === 'complete' && (await matchesUsed(this.#deps.sql, scan.id)) < INCLUDED_MATCHES;
    return toScanMessage(scan, this.#deps.publicBaseUrl, { now: this.#now(), canMatch });
  }

  #authorize(req: ScanIdentity): Promise<ScanRecord> {
    return authorizeScan(this.#deps.sql, { pepper: this.#deps.pepper, now: this.#now }, req);
  }
}
