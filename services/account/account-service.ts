/**
 * AccountService: accounts and their upstream identities, the scans an account owns, and deleting all the
 * service keeps about a person. The façade calls it after verifying a bearer token; internal systems may
 * call it directly, so every rule is checked here.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import { type EntityManager, raw } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import {
  type AccountService,
  DeleteAccountDataResponseSchema,
  DeleteAccountScanResponseSchema,
  ForgetUnusedAccountResponseSchema,
  GetAccountResponseSchema,
  GetAccountScanResponseSchema,
  ListAccountScansResponseSchema,
  OpenSaveResponseSchema,
  SaveScanResponseSchema,
  SignInResponseSchema,
  StartAccountScanResponseSchema,
} from '../../gen/skinmatch/v1/account_pb.ts';
import type { Orm } from '../core/db/orm.ts';
import { Scan } from '../core/db/scan-entity.ts';
import { deleteOneScan } from '../scan/scan-deletion.ts';
import type { ScanServiceImpl } from '../scan/scan-service.ts';
import { toScanMessage } from '../scan/scan-view.ts';
import { serviceError } from '../shared/errors.ts';
import { forgetUnusedAccount } from './account-purge.ts';
import {
  ACCOUNT_NOT_FOUND,
  type AccountRow,
  accountGone,
  deleteAccount,
  findAccount,
  signIn,
} from './account-store.ts';
import { decodePageToken, encodePageToken } from './scan-page-token.ts';
import { checkSavable, SAVE_NOT_FOUND, type SaveRequest, saveScan } from './scan-saving.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;
export const ACCOUNT_SCAN_NOT_FOUND = 'The account has no scan with this run_id.';

export interface AccountServiceDeps {
  readonly orm: Orm;
  readonly publicBaseUrl: string;
  readonly scans: ScanServiceImpl;
  /** Key of the HMAC under which a consenting browser's secret is stored. */
  readonly pepper: Buffer;
  readonly now?: () => Date;
}

export class AccountServiceImpl implements ServiceImpl<typeof AccountService> {
  readonly #deps: AccountServiceDeps;

  constructor(deps: AccountServiceDeps) {
    this.#deps = deps;
  }

  async signIn(req: { provider: string; subject: string }) {
    for (const [field, value] of [
      ['provider', req.provider],
      ['subject', req.subject],
    ] as const) {
      if (value === '' || value.length > 255) {
        throw serviceError('invalid_input', `${field} must be 1 to 255 characters.`, { field });
      }
    }
    const em = this.#em();
    const { accountId, created } = await signIn(em, req.provider, req.subject, this.#now());
    return create(SignInResponseSchema, {
      account: accountMessage((await findAccount(em, accountId))!),
      created,
    });
  }

  async getAccount(req: { accountId: string }) {
    return create(GetAccountResponseSchema, {
      account: accountMessage(await this.#account(this.#em(), req)),
    });
  }

  async startAccountScan(req: { accountId: string; source: string }) {
    const account = await this.#account(this.#em(), req);
    const { runId, accessToken, uploadUrl, scan } = await this.#deps.scans
      .startScanFor(req.source, account.id)
      .catch(accountGone);
    return create(StartAccountScanResponseSchema, { runId, accessToken, uploadUrl, scan });
  }

  async getAccountScan(req: { accountId: string; runId: string }) {
    const scan = await this.#scan(this.#em(), req);
    return create(GetAccountScanResponseSchema, {
      scan: this.#view(scan),
      usedMatch: await this.#deps.scans.usedMatchOf(scan),
    });
  }

  async deleteAccountScan(req: { accountId: string; runId: string }) {
    const em = this.#em();
    const scan = await this.#scan(em, req);
    await deleteOneScan(em, scan.id, scan.accountId!);
    return create(DeleteAccountScanResponseSchema, { runId: scan.id, deleted: true });
  }

  async listAccountScans(req: { accountId: string; pageSize: number; pageToken: string }) {
    const em = this.#em();
    const account = await this.#account(em, req);
    if (req.pageSize < 0 || req.pageSize > MAX_PAGE) {
      throw serviceError('invalid_input', `page_size must be 0 to ${MAX_PAGE}.`, { field: 'page_size' });
    }
    const size = req.pageSize || DEFAULT_PAGE;
    const pepper = this.#deps.pepper;
    const after = req.pageToken === '' ? undefined : decodePageToken(pepper, account.id, req.pageToken);
    // A row comparison, so that the scan of scans_account_idx (account_id, created_at desc, id desc) starts
    // right after the cursor.
    const scans = await em.find(
      Scan,
      after
        ? { accountId: account.id, [raw('(created_at, id) < (?, ?)', [after.createdAt, after.runId])]: [] }
        : { accountId: account.id },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: size + 1 },
    );
    const last = scans.length > size ? scans[size - 1] : undefined;
    return create(ListAccountScansResponseSchema, {
      scans: scans.slice(0, size).map((scan) => this.#view(scan)),
      nextPageToken: last
        ? encodePageToken(pepper, account.id, { createdAt: last.createdAt, runId: last.id })
        : '',
    });
  }

  async deleteAccountData(req: { accountId: string }) {
    checkAccountId(req.accountId);
    return create(DeleteAccountDataResponseSchema, await deleteAccount(this.#em(), req.accountId));
  }

  async forgetUnusedAccount(req: { accountId: string }) {
    checkAccountId(req.accountId);
    const deleted = await forgetUnusedAccount(
      this.#em() as SqlEntityManager,
      req.accountId.toLowerCase(),
      this.#now(),
    );
    return create(ForgetUnusedAccountResponseSchema, { deleted });
  }

  async openSave(req: SaveRequest) {
    const em = this.#em();
    const saveState = await checkSavable(em, this.#deps.pepper, this.#now(), req);
    return create(OpenSaveResponseSchema, { scan: await this.#scanMessage(em, req.runId), saveState });
  }

  async saveScan(req: SaveRequest) {
    const em = this.#em();
    await this.#account(em, req);
    const newlySaved = await saveScan(em, this.#deps.pepper, this.#now(), req).catch(accountGone);
    return create(SaveScanResponseSchema, { scan: await this.#scanMessage(em, req.runId), newlySaved });
  }

  /**
   * The scan as the save page shows it, read after the check: a deletion in between (the agent's, the
   * page's) makes it the `not_found` of a scan already gone, never an internal error.
   */
  async #scanMessage(em: EntityManager, runId: string) {
    const scan = await em.findOne(Scan, { id: runId.toLowerCase() }, { refresh: true });
    if (!scan) throw serviceError('not_found', SAVE_NOT_FOUND);
    return this.#view(scan);
  }

  /**
   * A scan as the account (or the save page's browser) sees it, by run_id: it holds no token, so a complete
   * scan has no recommend_products to offer it (next_action none), and an expired upload page no link.
   */
  #view(scan: Scan) {
    return toScanMessage(scan, this.#deps.publicBaseUrl, { now: this.#now(), canMatch: false });
  }

  #now(): Date {
    return this.#deps.now?.() ?? new Date();
  }

  async #account(em: EntityManager, req: { accountId: string }): Promise<AccountRow> {
    checkAccountId(req.accountId);
    const account = await findAccount(em, req.accountId);
    if (!account) throw serviceError('not_found', ACCOUNT_NOT_FOUND);
    return account;
  }

  async #scan(em: EntityManager, req: { accountId: string; runId: string }): Promise<Scan> {
    const account = await this.#account(em, req);
    if (req.runId === '') throw serviceError('scan_required', 'run_id is required.');
    if (!UUID.test(req.runId))
      throw serviceError('invalid_input', 'run_id must be a UUID.', { field: 'run_id' });
    const scan = await em.findOne(Scan, { id: req.runId.toLowerCase(), accountId: account.id });
    if (!scan) throw serviceError('not_found', ACCOUNT_SCAN_NOT_FOUND);
    return scan;
  }

  #em(): EntityManager {
    return this.#deps.orm.em.fork();
  }
}

function checkAccountId(accountId: string): void {
  if (!UUID.test(accountId)) {
    throw serviceError('invalid_input', 'account_id must be a UUID.', { field: 'account_id' });
  }
}

function accountMessage(account: AccountRow) {
  return {
    accountId: account.id,
    identities: account.identities,
    createdAt: timestampFromDate(account.createdAt),
  };
}
