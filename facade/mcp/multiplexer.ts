/**
 * One MCP SDK `Server`, many HTTP requests. The SDK's documented stateless pattern builds a server and a
 * transport per request, which costs most of the request's time; here one long-lived server is connected
 * to this transport, which hands it each request's messages and routes each response back to the HTTP
 * request that sent it. Clients pick their own JSON-RPC ids (usually 1, 2, …), so ids are renumbered on
 * the way in and restored on the way out: two clients that both send id 1 never see each other's answer.
 * The SDK keeps all protocol handling: validation of requests, method dispatch, error responses.
 *
 * Client notifications never reach the shared server: on this stateless endpoint nothing ties a
 * notification to the HTTP request it would refer to, and the server's internal ids belong to whoever
 * sent each request, so a `notifications/cancelled` naming one could stop another client's call. A
 * request is cancelled only by its own HTTP request going away, or by its deadline: every request ends
 * with the server's answer or a timeout, and leaves nothing behind.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';

type Response = Extract<JSONRPCMessage, { id: RequestId }> & ({ result: unknown } | { error: unknown });

/** What `request` resolves with when the server did not answer in time (the SDK's RequestTimeout). */
export const TIMED_OUT = -32001;
/** Longest a request waits for the server's answer unless configured. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

interface Pending {
  readonly clientId: RequestId;
  readonly resolve: (response: Response) => void;
}

export class RequestMultiplexer implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  #nextId = 1;

  constructor(timeoutMs: number = DEFAULT_REQUEST_TIMEOUT_MS) {
    this.#timeoutMs = timeoutMs;
  }

  /** How long a request waits for its answer before it ends as timed out (MCP_REQUEST_TIMEOUT_MS). */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Requests handed to the server and not yet answered, timed out or abandoned. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /**
   * Sends a client request into the server and resolves with the server's response to it, or with a
   * `TIMED_OUT` error after the deadline, once the request's cancellation has been sent on. When
   * `abandoned` fires first (the HTTP client went away), the server is told to stop the work and the
   * promise resolves with nothing.
   */
  request(
    message: JSONRPCRequest,
    extra?: MessageExtraInfo,
    abandoned?: AbortSignal,
  ): Promise<Response | undefined> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const finish = (response: Response | undefined) => {
        clearTimeout(timer);
        abandoned?.removeEventListener('abort', onAbandoned);
        this.#pending.delete(id);
        resolve(response);
      };
      const cancel = (reason: string) => {
        if (!this.#pending.has(id)) return false;
        this.onmessage?.({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: id, reason },
        });
        return true;
      };
      const timer = setTimeout(() => {
        if (!cancel('timed out')) return;
        // Answered only once what the cancellation sends is out: a tool's call to core is reset (HTTP/2
        // RST_STREAM, so that core consumes nothing: match-service.ts), and Node sends that frame from the
        // event loop's check phase, ahead of any setImmediate callback. Answered at once, the answer left
        // first, and a client retrying (or a core resuming from a pause) could reach core before the reset:
        // the abandoned call then spent the scan's match (allowance-abandoned.test.ts, failing under load).
        setImmediate(() =>
          finish({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: TIMED_OUT, message: 'The service did not answer in time; try again later.' },
          } as Response),
        );
      }, this.#timeoutMs);
      const onAbandoned = () => {
        if (cancel('client went away')) finish(undefined);
      };
      this.#pending.set(id, { clientId: message.id, resolve: finish });
      abandoned?.addEventListener('abort', onAbandoned, { once: true });
      this.onmessage?.({ ...message, id }, extra);
      if (abandoned?.aborted) onAbandoned();
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const id =
      'id' in message && ('result' in message || 'error' in message) ? message.id : options?.relatedRequestId;
    if (typeof id !== 'number') return; // server-initiated notifications have no one to go to: stateless
    const pending = this.#pending.get(id);
    if (!pending || !('result' in message || 'error' in message)) return;
    pending.resolve({ ...message, id: pending.clientId } as Response);
  }
}
