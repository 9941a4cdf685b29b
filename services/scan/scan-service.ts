/**
 * ScanService: starting, reading, watching and deleting scans. Every call on an existing scan proves the
 * token first (scan-access.ts).
 */
import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import type { UsedMatch } from '../../gen/skinmatch/v1/match_pb.ts';
import {
  DeleteScanResponseSchema,
  GetScanResponseSchema,
  type ScanService,
  StartScanResponseSchema,
  type WatchScanResponse,
  WatchScanResponseSchema,
} from '../../gen/skinmatch/v1/scan_pb.ts';
import type { LiveCatalog } from '../catalog/catalog-store.ts';
import type { Orm } from '../core/db/orm.ts';
import type { PlainSql } from '../core/db/plain-sql.ts';
import { findMatch, type StoredMatch } from '../match/allowance.ts';
import { usedMatch } from '../match/used-match.ts';
import { NOT_FOUND_MESSAGE, serviceError } from '../shared/errors.ts';
import { concernsFromScores } from '../shared/measures.ts';
import type { Notifications } from '../shared/notifications.ts';
import { admissionsEnabled } from './admissions.ts';
import { authorizeScan } from './scan-access.ts';
import { deleteOneScan } from './scan-deletion.ts';
import { checkSource, type ScanIdentity } from './scan-input.ts';
import { SCAN_COLUMNS, type ScanRecord, type ScanRow, scanRecord } from './scan-reads.ts';
import { toScanMessage, uploadUrl } from './scan-view.ts';
import { scanChanges } from './scan-watch.ts';
import { issueToken } from './token.ts';

export const GUEST_TOKEN_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

const INSERT_SCAN = `insert into scans (id, token_hash, source, created_at, updated_at, expires_at, account_id)
  values ($1, $2, $3, $4, $4, $5, $6) returning ${SCAN_COLUMNS}`;

export interface ScanServiceDeps {
  readonly orm: Orm;
  /** The ORM's pool, for the plain read of a scan by id (scan-reads.ts). */
  readonly sql: PlainSql;
  readonly pepper: Buffer;
  readonly publicBaseUrl: string;
  /** The catalog a used match's products are scored again from (used-match.ts). */
  readonly catalog: LiveCatalog;
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
    // Bound parameters, not the ORM's literals: the token's hash never appears in a statement's text.
    const { rows } = await this.#deps.sql.query<ScanRow>(INSERT_SCAN, [
      randomUUID(),
      hash,
      source,
      now,
      new Date(now.getTime() + GUEST_TOKEN_LIFETIME_MS),
      accountId,
    ]);
    const scan = scanRecord(rows[0]!);
    return create(StartScanResponseSchema, {
      runId: scan.id,
      accessToken: token,
      uploadUrl: uploadUrl(this.#deps.publicBaseUrl, scan.id),
      scan: await this.#message(scan),
    });
  }

  /** The scan, and once its one match is used, that match's products (used-match.ts). */
  async getScan(req: ScanIdentity) {
    const scan = await this.#authorize(req);
    const stored = await this.#storedMatch(scan);
    return create(GetScanResponseSchema, {
      scan: this.#view(scan, scan.status === 'complete' && stored === null),
      usedMatch: stored ? this.#usedMatch(scan, stored) : undefined,
    });
  }

  /** A scan's used match, for a reader that may see it (an account's own scan); undefined while unused. */
  async usedMatchOf(scan: ScanRecord): Promise<UsedMatch | undefined> {
    const stored = await this.#storedMatch(scan);
    return stored ? this.#usedMatch(scan, stored) : undefined;
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
    return this.#view(scan, scan.status === 'complete' && (await this.#storedMatch(scan)) === null);
  }

  #view(scan: ScanRecord, canMatch: boolean) {
    return toScanMessage(scan, this.#deps.publicBaseUrl, { now: this.#now(), canMatch });
  }

  /** Only a complete scan can have used its match: no read for the others (the polls of a scan under way). */
  #storedMatch(scan: ScanRecord): Promise<StoredMatch | null> {
    return scan.status === 'complete' ? findMatch(this.#deps.sql, scan.id) : Promise.resolve(null);
  }

  #usedMatch(scan: ScanRecord, stored: StoredMatch): UsedMatch {
    return usedMatch(stored, concernsFromScores(scan.scores ?? {}), this.#deps.catalog);
  }

  #authorize(req: ScanIdentity): Promise<ScanRecord> {
    return authorizeScan(this.#deps.sql, { pepper: this.#deps.pepper, now: this.#now }, req);
  }
}
