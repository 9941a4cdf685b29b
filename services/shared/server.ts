/**
 * Serves Connect routes on one port in HTTP/2 cleartext and HTTP/1.1 (h1-h2-listener.ts), so Connect, gRPC
 * and gRPC-Web clients all work, browsers and fetch over HTTP/1.1 too.
 * Every call is logged once with its procedure, outcome and duration, and counted in the RPC metrics;
 * payloads are never logged. An error that is not a ConnectError is logged and answered as "internal
 * error", never with its own message — unless it is the call's own end (its client cancelled, its deadline
 * passed), which is the call's outcome (Canceled, DeadlineExceeded) and no failure. A request message
 * larger than `readMaxBytes` is refused before it is read (RESOURCE_EXHAUSTED), and one with a NUL
 * character in its text before a service sees it (INVALID_ARGUMENT, request-text.ts); one that does not parse is INVALID_ARGUMENT too (request-parse.ts).
 * A timeout longer than a Node timer holds is bounded to it
 * (call-timeout.ts), and a stream cut short by its deadline ends DEADLINE_EXCEEDED, never OK. grpc-message
 * is written as the gRPC spec encodes it (grpc-message.ts).
 * Streams per connection, the time a request may take to arrive, keepalive pings and idle connections are
 * bounded (server-limits.ts).
 */
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { Code, ConnectError, type ConnectRouter, type Interceptor } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { callGate } from './call-gate.ts';
import { RECORDED, recordCall } from './call-record.ts';
import { boundCallTimeout, callTimeoutMs } from './call-timeout.ts';
import { specGrpcMessages } from './grpc-message.ts';
import { createDualServer } from './h1-h2-listener.ts';
import type { Logger } from './logger.ts';
import { secondsSince } from './metrics.ts';
import { unparsableStreamRequests } from './request-parse.ts';
import { refuseNulText } from './request-text.ts';
import {
  boundRequestRead,
  DEFAULT_SERVER_LIMITS,
  http2Options,
  type ServerLimits,
  watchSession,
} from './server-limits.ts';
import { serverTelemetry } from './telemetry.ts';

/** Answers smaller than this go uncompressed even to a client that accepts gzip (Connect's default: 1 KiB). */
export const COMPRESS_MIN_BYTES = 64 * 1024;
/**
 * The largest request message a server reads by default: gRPC's usual 4 MiB, raised for a server whose
 * requests carry photos (core's UploadPhoto, inference's AnalyzeFace). Connect's own default is 4 GiB,
 * which let a single call hold hundreds of megabytes of a process's memory.
 */
export const DEFAULT_READ_MAX_BYTES = 4 * 1024 * 1024;

/** A connection that has not said its protocol (sent its first bytes) by then is closed. */
const FIRST_BYTES_TIMEOUT_MS = 10_000;

export interface RunningServer {
  readonly port: number;
  /**
   * Stops taking connections and tells every client to open no new stream (HTTP/2 GOAWAY); the calls in
   * flight finish. After `forceAfterMs` (default: never) the sessions still open are destroyed — a
   * WatchScan or health Watch stream would otherwise hold the shutdown forever.
   */
  close(forceAfterMs?: number): Promise<void>;
}

export interface ServerOptions {
  readonly port: number;
  readonly host?: string;
  readonly logger: Logger;
  readonly routes: (router: ConnectRouter) => void;
  readonly interceptors?: Interceptor[];
  /**
   * The largest request message read (DEFAULT_READ_MAX_BYTES by default); a method that takes more (core's
   * UploadPhoto) is registered with its own `readMaxBytes` (`router.rpc`).
   */
  readonly readMaxBytes?: number;
  /** Streams, request and connection bounds (server-limits.ts); DEFAULT_SERVER_LIMITS by default. */
  readonly limits?: ServerLimits;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const limits = options.limits ?? DEFAULT_SERVER_LIMITS;
  // Paths whose requests last as long as the call (client and bidi streams): no bound on reading them.
  const streamingRequests = new Set<string>();
  const handler = connectNodeAdapter({
    routes: (router) => {
      options.routes(router);
      for (const route of router.handlers) {
        if (route.method.methodKind === 'client_streaming' || route.method.methodKind === 'bidi_streaming')
          streamingRequests.add(route.requestPath);
      }
    },
    // Callers sit on the same host or cluster network, where gzip of a few-kB answer (five products)
    // cost more CPU than sending it (docs/data-path.md); only large answers are still compressed.
    compressMinBytes: COMPRESS_MIN_BYTES,
    readMaxBytes: options.readMaxBytes ?? DEFAULT_READ_MAX_BYTES,
    // A request that does not parse is the caller's fault: INVALID_ARGUMENT, not INTERNAL (request-parse.ts).
    // It also logs and counts a call refused before any interceptor runs (call-gate.ts).
    requestGate: callGate(options.logger),
    // Outermost: the caller's trace and request id, so the call's log line (and anything it logs) has them.
    interceptors: [
      serverTelemetry(),
      unparsableStreamRequests(),
      logCalls(options.logger),
      refuseNulText(),
      ...(options.interceptors ?? []),
    ],
  });
  const server = createDualServer(
    (req, res) => {
      if ('stream' in req) stopReadingOnceAnswered(req);
      if (!streamingRequests.has(req.url?.split('?', 1)[0] ?? ''))
        boundRequestRead(req, limits.requestReadTimeoutMs);
      boundCallTimeout(req.headers);
      specGrpcMessages(res);
      handler(req, res);
    },
    {
      h2: http2Options(limits),
      firstBytesTimeoutMs: FIRST_BYTES_TIMEOUT_MS,
      headersTimeoutMs: limits.requestReadTimeoutMs,
    },
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.h2.on('session', (session) => {
    sessions.add(session);
    watchSession(session, limits);
    session.once('close', () => sessions.delete(session));
  });
  // Every connection, to cut at the close's bound: a destroyed HTTP/2 session whose client stopped reading
  // still waits for its socket's writes to drain, which never happens, and the close with it.
  const sockets = new Set<Socket>();
  server.tcp.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.tcp.once('error', reject);
    server.tcp.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  return {
    port: (server.tcp.address() as AddressInfo).port,
    close: (forceAfterMs?: number) =>
      new Promise<void>((resolve) => {
        const force =
          forceAfterMs === undefined
            ? undefined
            : setTimeout(() => {
                for (const session of sessions) session.destroy();
                server.destroyHttp1();
                for (const socket of sockets) socket.destroy();
              }, forceAfterMs);
        server.tcp.close(() => {
          clearTimeout(force);
          resolve();
        });
        for (const session of sessions) session.close();
        server.closeHttp1();
      }),
  };
}

/**
 * An answer given before the request's end (a message over readMaxBytes): the client would go on sending
 * into a stream nobody reads, and the stream, its session and a graceful close would wait for it forever
 * (measured: the test stack's close never returned). So once the answer's last frame is out (its trailers,
 * which Node asks for after the body), the stream is reset: the client already holds the whole answer.
 * RST_STREAM with CANCEL, not NO_ERROR: with NO_ERROR Node keeps the stream until the unread request
 * body is consumed, which is the very wait this avoids. A request read to its end (every call the
 * services complete normally) is left alone.
 */
function stopReadingOnceAnswered(req: http2.Http2ServerRequest): void {
  const { stream } = req;
  const stop = () => {
    if (!req.complete && !stream.destroyed) stream.close(http2.constants.NGHTTP2_CANCEL);
  };
  stream.once('finish', () => {
    if (stream.state.localClose) stop();
    else stream.once('wantTrailers', () => setImmediate(stop)); // after the response's own listener
  });
}

/** How early before its deadline a call the client cancels still counts as ended by the deadline. */
const DEADLINE_SLACK_MS = 10;

/**
 * A call whose client gave up (its deadline passed, it cancelled, its connection went) is recorded as
 * DeadlineExceeded or Canceled, whatever the handler did after: an answer nobody receives is no "ok"
 * (a GetScan answered 23 s after its 1 s deadline, the watches of a killed client, were all counted "ok").
 */
function logCalls(logger: Logger): Interceptor {
  return (next) => async (req) => {
    const started = performance.now();
    const method = `${req.method.parent.typeName}/${req.method.name}`;
    const deadlineMs = callTimeoutMs(req.header);
    let logged = false;
    const log = (code: string) => {
      // Recorded by the request gate already: refused (its deadline passed) while its request still arrived.
      if (logged || req.contextValues.get(RECORDED)) return;
      logged = true;
      if (req.signal.aborted) code = Code[ConnectError.from(req.signal.reason).code];
      // A client that gives up at its deadline resets the stream (CANCEL), which may arrive a moment before
      // this server's own timer for the same deadline fires: the call still ended by its deadline.
      if (
        code === 'Canceled' &&
        deadlineMs !== undefined &&
        secondsSince(started) * 1000 >= deadlineMs - DEADLINE_SLACK_MS
      )
        code = 'DeadlineExceeded';
      recordCall(logger, {
        service: req.method.parent.typeName,
        method: req.method.name,
        code,
        seconds: secondsSince(started),
      });
    };
    // Unexpected failures are logged here and reach the client only as "internal error".
    const clientError = (err: unknown): ConnectError => {
      if (err instanceof ConnectError) {
        log(Code[err.code]);
        return err;
      }
      // The work cut short because the client left (the database pool refuses an abandoned call, and
      // MikroORM wraps that refusal in an error of its own, keeping only its message): no failure of ours.
      if (endedByAbort(req.signal, err)) {
        logger.debug({ procedure: method, err }, 'rpc abandoned by its client');
        const reason = ConnectError.from(req.signal.reason);
        log(Code[reason.code]);
        return reason;
      }
      logger.error({ procedure: method, err }, 'rpc failed');
      log('Internal');
      return new ConnectError('internal error', Code.Internal);
    };
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (err) {
      throw clientError(err);
    }
    if (!res.stream) {
      log('ok');
      return res;
    }
    // A streaming response fails while it is being read, after this function returned: guard the reading too.
    const messages = res.message;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* messages;
          // A stream whose handler stopped because the call's signal aborted (WatchScan, WatchIntake and
          // health Watch end quietly then) ended by its deadline, not by its own end: never OK, which tells a
          // watcher the scan has settled (seen: WatchScan with grpc-timeout 200m ended OK after 200 ms).
          if (req.signal.aborted) throw ConnectError.from(req.signal.reason);
          log('ok');
        } catch (err) {
          throw clientError(err);
        } finally {
          // Left unread (the client went away while the stream was open).
          log('Canceled');
        }
      })(),
    };
  };
}

/** `err` is the call's abort reason, or an error made of it (same message), once the call has aborted. */
function endedByAbort(signal: AbortSignal, err: unknown): boolean {
  if (!signal.aborted) return false;
  if (err === signal.reason) return true;
  return err instanceof Error && err.message === ConnectError.from(signal.reason).message;
}
