/**
 * The Connect transport between this project's own processes (the façade's calls to core). Unary calls
 * — every tool call is one — are sent as the Connect protocol's unary POST straight on an HTTP/2 stream
 * of connect-node's session manager (which keeps the connection: connects, reconnects after a GOAWAY,
 * closes it when idle); streaming calls go to connect-node's own transport on the same session.
 *
 * Why not connect-node's transport for unary calls too: it runs each call through a pipeline of async
 * iterables, header conversions and abort signals built for streaming that cost the façade about 150 µs
 * of CPU per call against 50 µs for the HTTP/2 request itself, a quarter of the façade's whole cost of a
 * `get_skin_scan` (docs/data-path.md). The protocol's rules are the library's own: its error decoding
 * (`errorFromJsonBytes`, details included) and its status-to-code mapping; interceptors
 * wrap each call exactly as they do in connect-node's transport.
 */
import type http2 from 'node:http2';
import { constants } from 'node:http2';
import type { DescMethodUnary } from '@bufbuild/protobuf';
import { create, type DescMessage, fromBinary, isMessage, toBinary } from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  createContextValues,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from '@connectrpc/connect';
import { codeFromHttpStatus, errorFromJsonBytes } from '@connectrpc/connect/protocol-connect';
import { createConnectTransport, Http2SessionManager } from '@connectrpc/connect-node';

export interface InternalTransportOptions {
  /** e.g. `http://core:8081` (HTTP/2 without TLS, as core serves it). */
  readonly baseUrl: string;
  /** Deadline of a call that sets none; also sent to the server (`Connect-Timeout-Ms`). */
  readonly defaultTimeoutMs?: number;
  readonly interceptors?: Interceptor[];
}

/**
 * HTTP/2 client sessions between our own processes (façade → core, core → inference). Node bounds what a
 * session has queued to send (`maxSessionMemory`, default 10 MB) and refuses every new stream past it with
 * NGHTTP2_ENHANCE_YOUR_CALM: 32 analyses of a 2048 px photo (578 kB) on core's one connection to inference,
 * which reads them one at a time, got 14 of 32 refused — as would any tool call on the façade's one
 * connection to core behind a few large photo uploads. What is queued is this process's own requests,
 * already bounded by its own limits (the scan worker's concurrency, the façade's photo and body bounds) and
 * its pod's memory: 1024 MB, above every pod's limit, so that this bound never acts.
 */
export const INTERNAL_SESSION_OPTIONS: http2.ClientSessionOptions = { maxSessionMemory: 1024 };

const PROTO = 'application/proto';
const TRAILER_PREFIX = 'trailer-';

export function createInternalTransport(options: InternalTransportOptions): Transport {
  const sessions = new Http2SessionManager(options.baseUrl, undefined, INTERNAL_SESSION_OPTIONS);
  const streaming = createConnectTransport({
    baseUrl: options.baseUrl,
    httpVersion: '2',
    useBinaryFormat: true,
    defaultTimeoutMs: options.defaultTimeoutMs,
    interceptors: options.interceptors,
    sessionManager: sessions,
  });
  const base = options.baseUrl.replace(/\/+$/, '');
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const send = async (req: UnaryRequest): Promise<UnaryResponse> => {
    const path = `${basePath}/${req.method.parent.typeName}/${req.method.name}`;
    const headers: http2.OutgoingHttpHeaders = { 'content-type': PROTO, 'connect-protocol-version': '1' };
    req.header.forEach((value, key) => {
      headers[key] = value;
    });
    const body = toBinary(req.method.input, req.message);
    // An abort that came before (or while the session was being checked) fires no 'abort' event later.
    if (req.signal.aborted) throw abortError(req.signal);
    const stream = await sessions.request('POST', path, headers, {});
    if (req.signal.aborted) {
      stream.close(constants.NGHTTP2_CANCEL);
      throw abortError(req.signal);
    }
    return new Promise<UnaryResponse>((resolve, reject) => {
      let status = 0;
      let header = new Headers();
      let trailer = new Headers();
      const chunks: Buffer[] = [];
      const fail = (error: ConnectError) => {
        req.signal.removeEventListener('abort', onAbort);
        if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
        reject(error);
      };
      const onAbort = () => fail(abortError(req.signal));
      req.signal.addEventListener('abort', onAbort, { once: true });
      stream.on('response', (head) => {
        status = Number(head[':status']);
        [header, trailer] = headersAndTrailers(head);
      });
      stream.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        sessions.notifyResponseByteRead(stream);
      });
      stream.on('error', (err) => fail(ConnectError.from(err, Code.Unavailable)));
      stream.on('end', () => {
        req.signal.removeEventListener('abort', onAbort);
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        const type = header.get('content-type') ?? '';
        if (status !== 200 || !type.startsWith(PROTO)) {
          const fallback = new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status), header);
          return reject(
            type.startsWith('application/json') ? errorFromJsonBytes(bytes, header, fallback) : fallback,
          );
        }
        try {
          const message = fromBinary(req.method.output, bytes);
          resolve({ stream: false, service: req.service, method: req.method, header, trailer, message });
        } catch (err) {
          reject(new ConnectError(`parse binary: ${String(err)}`, Code.Internal));
        }
      });
      stream.on('close', () => {
        if (stream.rstCode !== constants.NGHTTP2_NO_ERROR && status === 0) {
          fail(new ConnectError(`stream closed (code ${stream.rstCode})`, Code.Unavailable));
        }
      });
      stream.end(body);
    });
  };
  const call = (options.interceptors ?? []).reduceRight<(req: UnaryRequest) => Promise<UnaryResponse>>(
    (next, interceptor) => interceptor(next as never) as never,
    send,
  );

  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const deadlineMs =
        timeoutMs === undefined ? options.defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;
      const { signal: callSignal, finish } = callSignalOf(signal, deadlineMs);
      const requestHeader = new Headers(header);
      if (deadlineMs !== undefined) requestHeader.set('connect-timeout-ms', String(deadlineMs));
      try {
        return (await call({
          stream: false,
          service: method.parent,
          method: method as DescMethodUnary,
          requestMethod: 'POST',
          url: `${base}/${method.parent.typeName}/${method.name}`,
          header: requestHeader,
          contextValues: contextValues ?? createContextValues(),
          message: messageOf(method.input, input),
          signal: callSignal,
        })) as never;
      } finally {
        finish();
      }
    },
    stream: streaming.stream,
  };
}

function messageOf(schema: DescMessage, input: unknown) {
  return isMessage(input, schema) ? input : create(schema, input as never);
}

/** The caller's signal and the deadline as one signal; `finish` clears the timer once the call is over. */
function callSignalOf(signal: AbortSignal | undefined, deadlineMs: number | undefined) {
  if (deadlineMs === undefined && signal) return { signal, finish: () => {} };
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    deadlineMs === undefined
      ? undefined
      : setTimeout(
          () =>
            controller.abort(new ConnectError(`the call took over ${deadlineMs} ms`, Code.DeadlineExceeded)),
          deadlineMs,
        );
  return {
    signal: controller.signal,
    finish: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

function abortError(signal: AbortSignal): ConnectError {
  const reason = signal.reason;
  return reason instanceof ConnectError ? reason : new ConnectError('the call was cancelled', Code.Canceled);
}

/** A unary answer's headers, and its trailers (sent as `trailer-` headers in the Connect protocol). */
function headersAndTrailers(head: http2.IncomingHttpHeaders): [Headers, Headers] {
  const header = new Headers();
  const trailer = new Headers();
  for (const [key, value] of Object.entries(head)) {
    if (key.startsWith(':') || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (key.startsWith(TRAILER_PREFIX)) trailer.set(key.slice(TRAILER_PREFIX.length), text);
    else header.set(key, text);
  }
  return [header, trailer];
}
