/**
 * oidc-provider's adapter: every record of the authorization server (sessions, interactions, grants,
 * codes, refresh tokens, registered clients) goes to core's OAuthStateService, which keeps it in
 * PostgreSQL. The façade keeps no state of its own, so any replica can serve any step of a flow.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';

const CORE_TIMEOUT_MS = 5000;

/**
 * Seconds after its first use in which a refresh token is served again. Every refresh rotates the token, and
 * a used one presented again ends the whole grant (a stolen copy is detected). But a client making calls in
 * parallel when its access token expires refreshes once per call, all with the token it holds: without a
 * grace the second of them ended the person's sign-in. Within it each call gets tokens of its own; later,
 * reuse ends the grant as before.
 */
export const REFRESH_REUSE_GRACE_S = 10;

type Found = { state?: { payload?: JsonObject } };

const nowS = () => Math.floor(Date.now() / 1000);

export function stateAdapterClass(state: Client<typeof OAuthStateService>) {
  const options = { timeoutMs: CORE_TIMEOUT_MS };
  const payloadOf = (res: Found) => res.state?.payload as AdapterPayload | undefined;

  return class StateAdapter implements Adapter {
    readonly model: string;

    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      // A JSON round trip drops `undefined` members, which a protobuf Struct cannot hold.
      const json = JSON.parse(JSON.stringify(payload)) as JsonObject;
      await state.upsertState(
        { model: this.model, id, payload: json, expiresIn: BigInt(Math.max(0, Math.ceil(expiresIn ?? 0))) },
        options,
      );
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const payload = payloadOf(await state.findState({ model: this.model, id }, options));
      const used = payload?.consumed;
      if (
        this.model === 'RefreshToken' &&
        typeof used === 'number' &&
        nowS() - used < REFRESH_REUSE_GRACE_S
      ) {
        delete payload!.consumed;
      }
      return payload;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await state.findStateByUid({ model: this.model, uid }, options));
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return payloadOf(await state.findStateByUserCode({ model: this.model, userCode }, options));
    }

    async consume(id: string): Promise<void> {
      await state.consumeState({ model: this.model, id }, options);
    }

    async destroy(id: string): Promise<void> {
      await state.destroyState({ model: this.model, id }, options);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await state.revokeStateByGrantId({ grantId }, options);
    }
  };
}
