/**
 * One MCP SDK `Server`, many HTTP requests. The SDK's documented stateless pattern builds a server and a
 * transport per request, which costs most of the request's time; here one long-lived server is connected
 * to this transport, which hands it each request's messages and routes each response back to the HTTP
 * request that sent it. Clients pick their own JSON-RPC ids (usually 1, 2, …), so ids are renumbered on
 * the way in and restored on the way out: two clients that both send id 1 never see each other's answer.
 * The SDK keeps all protocol handling: validation of requests, method dispatch, error responses.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';

type Response = Extract<JSONRPCMessage, { id: RequestId }> & ({ result: unknown } | { error: unknown });

interface Pending {
  readonly clientId: RequestId;
  readonly resolve: (response: Response) => void;
}

export class RequestMultiplexer implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Sends a client request into the server and resolves with the server's response to it. */
  request(message: JSONRPCRequest, extra?: MessageExtraInfo): Promise<Response> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, { clientId: message.id, resolve });
      this.onmessage?.({ ...message, id }, extra);
    });
  }

  /** Client notifications need no answer (e.g. `notifications/initialized`). */
  notify(message: JSONRPCNotification, extra?: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id =
      'id' in message && ('result' in message || 'error' in message) ? message.id : options?.relatedRequestId;
    if (typeof id !== 'number') return; // server-initiated notifications have no one to go to: stateless
    const pending = this.#pending.get(id);
    if (!pending || !('result' in message || 'error' in message)) return;
    this.#pending.delete(id);
    pending.resolve({ ...message, id: pending.clientId } as Response);
  }
}
