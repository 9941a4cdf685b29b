/**
 * OAuthStateService: the authorization server's state in PostgreSQL, one RPC per method of
 * oidc-provider's adapter contract. Each record is stored under (model, id) with its secondary keys
 * (grant, uid, user code) and the account it belongs to as columns, so that revoking a grant and deleting
 * an account are single statements. Expired records are never returned; `purgeExpiredState` deletes them.
 */
import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ServiceImpl } from '@connectrpc/connect';
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import {
  ConsumeStateResponseSchema,
  DestroyStateResponseSchema,
  FindStateByUidResponseSchema,
  FindStateByUserCodeResponseSchema,
  FindStateResponseSchema,
  type OAuthStateService,
  RevokeStateByGrantIdResponseSchema,
  StoredStateSchema,
  type UpsertStateRequest,
  UpsertStateResponseSchema,
} from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import type { Orm } from '../core/db/orm.ts';
import { serviceError } from '../shared/errors.ts';
import { accountGone } from './account-store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Records the provider stores without a lifetime (registered clients) are kept this long; a lifetime asked
 * for is at most this long too (the provider's longest here is 30 days: refresh tokens and grants). Beyond
 * what PostgreSQL's interval holds, a lifetime answered INTERNAL; 1e12 s was kept, to the year ~33 700.
 */
const DEFAULT_LIFETIME_S = 10 * 365 * 24 * 3600;
/**
 * The longest id, grant id, uid and user code stored. oidc-provider's are 21 (nanoid) to 43 characters
 * (tokens, replay hashes), its user codes shorter; a client_id registered by configuration a little longer.
 * These columns are indexed: a 1 MB id exceeded PostgreSQL's index row size and answered INTERNAL.
 */
const MAX_KEY = 256;
/**
 * A record with the account it belongs to; an account that does not exist owns none. One deleted while this
 * runs fails the key (account-store.ts, accountGone).
 */
const UPSERT_STATE = `insert into oauth_state (model, id, payload, grant_id, uid, user_code, account_id, expires_at)
  values (?, ?, ?, ?, ?, ?, (select id from accounts where id = ?), now() + make_interval(secs => ?))
  on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id,
    uid = excluded.uid, user_code = excluded.user_code, account_id = excluded.account_id,
    expires_at = excluded.expires_at, consumed_at = null`;

interface Row {
  payload: JsonObject;
  expires_at: Date;
  consumed_at: Date | null;
}

export class OAuthStateServiceImpl implements ServiceImpl<typeof OAuthStateService> {
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  async upsertState(req: UpsertStateRequest) {
    const payload = req.payload ?? {};
    if (req.expiresIn < 0n || req.expiresIn > BigInt(DEFAULT_LIFETIME_S)) {
      throw serviceError(
        'invalid_input',
        `expires_in must be between 0 (the default lifetime) and ${DEFAULT_LIFETIME_S} seconds.`,
        { field: 'expires_in' },
      );
    }
    const lifetime = req.expiresIn > 0n ? Number(req.expiresIn) : DEFAULT_LIFETIME_S;
    checkKey('id', req.id);
    for (const key of ['grantId', 'uid', 'userCode']) checkKey(`payload.${key}`, text(payload[key]) ?? '');
    const accountId = accountOf(payload);
    const values = [
      checkModel(req.model),
      req.id,
      JSON.stringify(payload),
      text(payload.grantId),
      text(payload.uid),
      text(payload.userCode),
      accountId,
      lifetime,
    ];
    await this.#sql().execute(UPSERT_STATE, values).catch(accountGone);
    return create(UpsertStateResponseSchema, {});
  }

  async findState(req: { model: string; id: string }) {
    return create(FindStateResponseSchema, { state: await this.#find('id', req.model, req.id) });
  }

  async findStateByUid(req: { model: string; uid: string }) {
    return create(FindStateByUidResponseSchema, { state: await this.#find('uid', req.model, req.uid) });
  }

  async findStateByUserCode(req: { model: string; userCode: string }) {
    return create(FindStateByUserCodeResponseSchema, {
      state: await this.#find('user_code', req.model, req.userCode),
    });
  }

  async consumeState(req: { model: string; id: string }) {
    // The first use is the one recorded: a record used again (a refresh token within its grace, façade's
    // state-adapter.ts) keeps its first time, so that reuse cannot stretch the grace.
    await this.#sql().execute(
      'update oauth_state set consumed_at = coalesce(consumed_at, now()) where model = ? and id = ?',
      [checkModel(req.model), req.id],
    );
    return create(ConsumeStateResponseSchema, {});
  }

  async destroyState(req: { model: string; id: string }) {
    await this.#sql().execute('delete from oauth_state where model = ? and id = ?', [
      checkModel(req.model),
      req.id,
    ]);
    return create(DestroyStateResponseSchema, {});
  }

  async revokeStateByGrantId(req: { grantId: string }) {
    await this.#sql().execute('delete from oauth_state where grant_id = ?', [req.grantId]);
    return create(RevokeStateByGrantIdResponseSchema, {});
  }

  async #find(column: 'id' | 'uid' | 'user_code', model: string, key: string) {
    const rows = await this.#sql().execute<Row[]>(
      `select payload, expires_at, consumed_at from oauth_state
       where model = ? and ${column} = ? and expires_at > now()`,
      [checkModel(model), key],
    );
    const row = rows[0];
    if (!row) return undefined;
    const payload = row.consumed_at
      ? { ...row.payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) }
      : row.payload;
    return create(StoredStateSchema, { payload, expiresAt: timestampFromDate(new Date(row.expires_at)) });
  }

  #sql(): SqlEntityManager {
    return this.#orm.em.fork() as SqlEntityManager;
  }
}

/** Deletes expired records; returns how many. Core runs it periodically. */
export async function purgeExpiredState(em: EntityManager): Promise<number> {
  const rows = await (em as SqlEntityManager).execute<{ id: string }[]>(
    'delete from oauth_state where expires_at <= now() returning id',
  );
  // A registration access token goes with its client (kept a month while nobody signs in with it).
  const orphans = await (em as SqlEntityManager).execute<{ id: string }[]>(
    `delete from oauth_state t where t.model = 'RegistrationAccessToken' and not exists
       (select 1 from oauth_state c where c.model = 'Client' and c.id = t.payload->>'clientId') returning t.id`,
  );
  return rows.length + orphans.length;
}

function checkModel(model: string): string {
  if (!/^[A-Za-z]{1,40}$/.test(model)) {
    throw serviceError('invalid_input', 'model must be a provider model name.', { field: 'model' });
  }
  return model;
}

function checkKey(field: string, value: string): void {
  if (value.length > MAX_KEY) {
    throw serviceError('invalid_input', `${field} must be at most ${MAX_KEY} characters.`, { field });
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The account a record belongs to: a session's, a grant's or a token's `accountId`, or an interaction's. */
function accountOf(payload: JsonObject): string | null {
  const nested = (key: string, inner: string) => {
    const value = payload[key];
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject)[inner] : null;
  };
  const loginAccount = (key: string) => {
    const login = nested(key, 'login');
    return login && typeof login === 'object' && !Array.isArray(login) ? login.accountId : null;
  };
  const candidates = [
    payload.accountId,
    nested('session', 'accountId'),
    loginAccount('result'),
    loginAccount('lastSubmission'),
  ];
  const found = candidates.find((c): c is string => typeof c === 'string' && UUID.test(c));
  return found ?? null;
}
