/**
 * oidc-provider's adapter: every record of the authorization server (sessions, interactions, grants,
 * codes, refresh tokens, registered clients) goes to core's OAuthStateService, which keeps it in
 * PostgreSQL. The façade keeps no state of its own, so any replica can serve any step of a flow.
 *
 * Nothing stored is a usable credential (docs/design-notes.md, "What the authorization server keeps"): a
 * record whose id a client or a browser presents (code, token, session cookie, interaction) is stored under
 * a keyed hash of it, HMAC-SHA256 under a key derived from OAUTH_COOKIE_KEYS (at-rest.ts); the payload's
 * copies of it are sealed or left out and put back on find; a client's secret is sealed (AES-256-GCM).
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { type Timestamp, timestampMs } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import { type Adapter, type AdapterPayload, Provider } from 'oidc-provider';
import type { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import { AtRestKeys } from './at-rest.ts';
import { withOutages } from './core-outage.ts';

const CORE_TIMEOUT_MS = 5000;

/**
 * Seconds after its first use in which a refresh token is served again. Every refresh rotates the token, and
 * a used one presented again ends the whole grant (a stolen copy is detected). But a client making calls in
 * parallel when its access token expires refreshes once per call, all with the token it holds, and one that
 * lost the answer retries: without a grace the second of them ended the person's sign-in. Within it each
 * call gets tokens of its own, but the grant never forks: the newest successor of a token supersedes the
 * ones before it (the record `RefreshSuccessor`, under the token's stored id, names it), and a superseded
 * successor presented later counts as a reused token, which ends the whole grant. Once the token's
 * successor has been used, or later, reuse ends the grant as before.
 */
export const REFRESH_REUSE_GRACE_S = 10;
/** The record naming the live successor of a rotated refresh token. */
const SUCCESSOR_MODEL = 'RefreshSuccessor';
/** The `consumed` given a superseded successor: long past, so no grace applies. */
const SUPERSEDED = 1;

/**
 * Seconds a registered client is kept while nobody has signed in with it. The provider gives clients no
 * lifetime, so every registration (each MCP Inspector run, any caller of /register) was kept 10 years; a
 * client's first grant keeps it for those 10 years (`#keepClient`), and core's purge deletes an expired
 * client's registration access token with it.
 */
export const UNUSED_CLIENT_TTL_S = 30 * 24 * 3600;
const CLIENT_MODEL = 'Client';

type Found = { state?: { payload?: JsonObject; expiresAt?: Timestamp } };
type Payload = AdapterPayload & Record<string, unknown>;

const nowS = () => Math.floor(Date.now() / 1000);

/**
 * The models whose id is not presented by a client or a browser: a registered client's id is public (its
 * secret is sealed instead) and a grant's id is only ever looked up from a token's payload or claims.
 * Every other model's id is a credential or a cookie (codes, refresh and access tokens, the `__Host-session` and
 * interaction cookies, registration access tokens) and is stored only as a keyed hash.
 */
const PLAIN_ID_MODELS = new Set(['Client', 'Grant']);
/** Where an interaction's uid appears besides its id: the URL the browser is sent back to. */
const ID_MARK = '{id}';

/**
 * Session.uid is not hashed: it never leaves the server (tokens and interactions refer to their session by
 * it) and Session.findByUid looks it up. A payload found by it gets its id back from the sealed `jti`.
 */
export function stateAdapterClass(core: Client<typeof OAuthStateService>, keys: AtRestKeys) {
  const state = withOutages(core);
  const options = { timeoutMs: CORE_TIMEOUT_MS };
  const payloadOf = (res: Found) => res.state?.payload as Payload | undefined;
  /** The stored client, when there is none yet or it still has the lifetime of one nobody signed in with. */
  const unusedClient = async (id: string): Promise<Found | undefined> => {
    const found: Found = await state.findState({ model: CLIENT_MODEL, id }, options);
    const expiresAt = found.state?.expiresAt;
    if (expiresAt && timestampMs(expiresAt) - Date.now() > UNUSED_CLIENT_TTL_S * 1000) return undefined;
    return found;
  };

  return class StateAdapter implements Adapter {
    readonly model: string;
    readonly #hashed: boolean;

    constructor(model: string) {
      this.model = model;
      this.#hashed = !PLAIN_ID_MODELS.has(model);
    }

    /** The keys a record is stored under for `id`: its hash under every key, current first. */
    #ids(id: string): string[] {
      return this.#hashed ? keys.hashes(this.model, id) : [id];
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // A JSON round trip drops `undefined` members, which a protobuf Struct cannot hold.
      const json = this.#toRest(id, JSON.parse(JSON.stringify(payload)) as Payload) as JsonObject;
      const [current, ...old] = this.#ids(id);
      const lifetime = BigInt(Math.max(0, Math.ceil(expiresIn ?? (await this.#defaultLifetime(current!)))));
      const parent = this.#parentOf(id);
      if (parent) json.parent = parent;
      await state.upsertState(
        { model: this.model, id: current!, payload: json, expiresIn: lifetime },
        options,
      );
      // The newest successor of a refresh token is its only live one (REFRESH_REUSE_GRACE_S).
      if (parent) {
        const link = {
          successor: current!,
          grantId: json.grantId ?? null,
          accountId: json.accountId ?? null,
        };
        await state.upsertState(
          { model: SUCCESSOR_MODEL, id: parent, payload: link, expiresIn: lifetime },
          options,
        );
      }
      // A record first stored under a key since rotated out of first place now lives under the current one.
      for (const stale of old) await state.destroyState({ model: this.model, id: stale }, options);
      if (this.model === 'Grant' && typeof json.clientId === 'string') await this.#keepClient(json.clientId);
    }

    /** A record the provider gives no lifetime: 10 years (0), a client nobody signed in with yet less. */
    async #defaultLifetime(id: string): Promise<number> {
      if (this.model !== CLIENT_MODEL) return 0;
      return (await unusedClient(id)) === undefined ? 0 : UNUSED_CLIENT_TTL_S;
    }

    /** A client someone signed in with is kept 10 years (0). */
    async #keepClient(clientId: string): Promise<void> {
      const found = await unusedClient(clientId);
      if (found?.state?.payload)
        await state.upsertState({ model: CLIENT_MODEL, id: clientId, payload: found.state.payload }, options);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      let payload: Payload | undefined;
      for (const key of this.#ids(id)) {
        payload = payloadOf(await state.findState({ model: this.model, id: key }, options));
        if (payload) break;
      }
      if (!payload) return undefined;
      if (this.model === 'RefreshToken') await this.#reuse(id, payload);
      return this.#fromRest(id, payload);
    }

    /**
     * A refresh token that a newer successor of its parent superseded is a reused one; a used one is served
     * again only within the grace, and only while the successor it was rotated into is unused.
     */
    async #reuse(id: string, payload: Payload): Promise<void> {
      const live = typeof payload.parent === 'string' ? await this.#successor(payload.parent) : undefined;
      if (live && !this.#ids(id).includes(live)) {
        payload.consumed = SUPERSEDED;
        return;
      }
      const used = payload.consumed;
      if (typeof used !== 'number' || nowS() - used >= REFRESH_REUSE_GRACE_S) return;
      const successor = await this.#successor(this.#ids(id)[0]!);
      const successorUsed =
        successor !== undefined &&
        payloadOf(await state.findState({ model: this.model, id: successor }, options))?.consumed !==
          undefined;
      if (!successorUsed) delete payload.consumed;
    }

    /** The stored id of the live successor of the refresh token stored as `key`, if it was rotated. */
    async #successor(key: string): Promise<string | undefined> {
      const link = payloadOf(await state.findState({ model: SUCCESSOR_MODEL, id: key }, options));
      return typeof link?.successor === 'string' ? link.successor : undefined;
    }

    /**
     * The stored id of the refresh token a rotation's new token replaces (the one presented), or undefined
     * when the record saved is not such a token.
     */
    #parentOf(id: string): string | undefined {
      const parent: unknown = Provider.ctx?.oidc?.entities.RotatedRefreshToken?.jti;
      if (this.model !== 'RefreshToken' || typeof parent !== 'string' || parent === id) return undefined;
      return this.#ids(parent)[0];
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const payload = payloadOf(await state.findStateByUid({ model: this.model, uid }, options));
      if (!payload) return undefined;
      if (!this.#hashed || payload.jti === undefined) return this.#fromRest(String(payload.jti), payload);
      // The id is sealed (under a key no longer configured: the record cannot be used).
      const id = keys.open(String(payload.jti), this.#context('jti'));
      return id ? this.#fromRest(id.value, payload) : undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      // The device flow is off (provider.ts): nothing is stored with a user code.
      return payloadOf(await state.findStateByUserCode({ model: this.model, userCode }, options));
    }

    async consume(id: string): Promise<void> {
      for (const key of this.#ids(id)) await state.consumeState({ model: this.model, id: key }, options);
    }

    async destroy(id: string): Promise<void> {
      for (const key of this.#ids(id)) await state.destroyState({ model: this.model, id: key }, options);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await state.revokeStateByGrantId({ grantId }, options);
    }

    #context(field: string): string {
      return `${this.model}.${field}`;
    }

    /** The payload as stored: no copy of the id in clear, secrets sealed. */
    #toRest(id: string, payload: Payload): Payload {
      if (this.#hashed) {
        if (payload.jti !== undefined) payload.jti = keys.seal(id, this.#context('jti'));
        if (typeof payload.returnTo === 'string') payload.returnTo = payload.returnTo.split(id).join(ID_MARK);
        const session = payload.session as Payload | undefined;
        // An interaction's copy of the person's `__Host-session` cookie.
        if (typeof session?.cookie === 'string')
          session.cookie = keys.seal(session.cookie, this.#context('cookie'));
      }
      if (typeof payload.client_secret === 'string') {
        payload.client_secret = keys.seal(payload.client_secret, this.#context(`secret.${id}`));
      }
      return payload;
    }

    /** The payload as the provider stored it: the id from the one presented, secrets opened. */
    async #fromRest(id: string, payload: Payload): Promise<AdapterPayload | undefined> {
      if (this.#hashed) {
        if (payload.jti !== undefined) payload.jti = id;
        if (typeof payload.returnTo === 'string') payload.returnTo = payload.returnTo.split(ID_MARK).join(id);
        const session = payload.session as Payload | undefined;
        if (typeof session?.cookie === 'string') {
          const cookie = keys.open(session.cookie, this.#context('cookie'));
          if (cookie) session.cookie = cookie.value;
          else delete session.cookie;
        }
      }
      const secret = payload.client_secret;
      if (typeof secret === 'string') {
        const opened = keys.open(secret, this.#context(`secret.${id}`));
        if (opened) payload.client_secret = opened.value;
        // Sealed under a key no longer configured: the client cannot authenticate and must register again.
        else if (AtRestKeys.isSealed(secret)) return undefined;
        // Stored in clear (by a façade before this one) or under an older key: stored sealed now.
        if (!opened?.current) await this.upsert(id, { ...payload } as AdapterPayload);
      }
      return payload as AdapterPayload;
    }
  };
}
