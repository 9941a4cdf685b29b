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

type Found = { state?: { payload?: JsonObject } };

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
      return payloadOf(await state.findState({ model: this.model, id }, options));
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
