/**
 * Bounds on what clients may hold of a gRPC/Connect server (server.ts), so that no client, slow, stuck or
 * hostile, holds memory without end. A probe of core found none: 4000 WatchScan streams took RSS 413 →
 * 747 MB (core's limit was 768 Mi then; 1536 Mi now), one HTTP/2 connection took 2000 streams, 5000 unary calls that sent a
 * message header and never its body were held forever (RSS 166 → 474 MB), and a connection whose client
 * vanished stayed open. Now:
 * - streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS; a client opens more once some end);
 * - streams an HTTP/2 connection resets (a client's cancels): a Rapid Reset flood is closed (RESET_LIMIT);
 * - calls of the watch methods open at once in the process: past it RESOURCE_EXHAUSTED;
 * - a request (unary or server-streaming: its one message) not received whole within a bound:
 *   DEADLINE_EXCEEDED (over HTTP/1.1 the connection is closed);
 * - keepalive pings on every HTTP/2 connection, which is closed when one goes unanswered, and an idle
 *   bound: a connection with no call open for that long is sent GOAWAY.
 */
import type http from 'node:http';
import type http2 from 'node:http2';
import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { whenAnswered } from './call-end.ts';
import type { EnvReader } from './env-reader.ts';

export interface ServerLimits {
  /** HTTP/2 streams one connection may have open (the façade sends every call on one connection). */
  readonly maxStreamsPerConnection: number;
  /** Watch streams (WatchScan, WatchIntake) the process holds open at once. */
  readonly maxWatches: number;
  /** The longest a unary or server-streaming call's request may take to arrive whole. */
  readonly requestReadTimeoutMs: number;
  /** How often an HTTP/2 connection is pinged; unanswered within PING_TIMEOUT_MS, it is closed. */
  readonly keepaliveIntervalMs: number;
  /** A connection with no call open this long is told to go (GOAWAY). */
  readonly idleTimeoutMs: number;
  /**
   * Streams one connection may reset (RST_STREAM: a gRPC client's cancel) at once, and more each second;
   * past it the connection is a Rapid Reset flood, sent GOAWAY and closed (see RESET_LIMIT).
   */
  readonly resetBurst: number;
  readonly resetsPerSecond: number;
}

/**
 * Resets one HTTP/2 connection may send (RST_STREAM: a gRPC client's cancel) at once, and more each
 * second; past it the connection is a Rapid Reset flood (CVE-2023-44487), whose streams no
 * SETTINGS_MAX_CONCURRENT_STREAMS holds back: nghttp2 sends GOAWAY (INTERNAL_ERROR) and closes it. Its
 * own line, 1000 at once and 33 a second, cut off honest clients: a @grpc/grpc-js client cancelling calls
 * just sent (3000 in ~3 s, among 3000 it let finish) lost its connection every ~1000 cancels, and the
 * calls in flight on it failed INTERNAL. A client resetting streams faster than 1000 a second is still
 * cut off, once 10 000 beyond that pace: a flood from one client here (~1900 a second) after 18 000.
 */
const RESET_LIMIT = { resetBurst: 10_000, resetsPerSecond: 1_000 };

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxStreamsPerConnection: 1024,
  maxWatches: 768,
  requestReadTimeoutMs: 30_000,
  keepaliveIntervalMs: 60_000,
  idleTimeoutMs: 300_000,
  ...RESET_LIMIT,
};

/** An unanswered keepalive ping closes its connection after this long. */
const PING_TIMEOUT_MS = 20_000;

/** The GRPC_* keys of the configuration (README). */
export function readServerLimits(env: EnvReader): ServerLimits {
  const d = DEFAULT_SERVER_LIMITS;
  const limits = {
    maxStreamsPerConnection: env.positive('GRPC_MAX_STREAMS_PER_CONNECTION', d.maxStreamsPerConnection),
    maxWatches: env.positive('GRPC_MAX_WATCHES', d.maxWatches),
    requestReadTimeoutMs: env.positive('GRPC_REQUEST_READ_TIMEOUT_MS', d.requestReadTimeoutMs),
    keepaliveIntervalMs: env.positive('GRPC_KEEPALIVE_INTERVAL_MS', d.keepaliveIntervalMs),
    idleTimeoutMs: env.positive('GRPC_IDLE_TIMEOUT_MS', d.idleTimeoutMs),
    resetBurst: d.resetBurst,
    resetsPerSecond: d.resetsPerSecond,
  };
  // The façade's watches and its calls share one connection: a watch bound above the stream bound would
  // let open watches hold every stream of it, and its calls would wait for a free one (no error).
  if (limits.maxWatches >= limits.maxStreamsPerConnection) {
    env.fault(
      `GRPC_MAX_WATCHES: got ${limits.maxWatches}, expected less than GRPC_MAX_STREAMS_PER_CONNECTION (${limits.maxStreamsPerConnection})`,
    );
  }
  return limits;
}

/** At most `max` calls of `methods` open at once; past it RESOURCE_EXHAUSTED. */
export function capOpenCalls(max: number, methods: readonly DescMethod[]): Interceptor {
  const capped = new Set(methods.map((m) => `${m.parent.typeName}/${m.name}`));
  let open = 0;
  return (next) => async (req) => {
    if (!capped.has(`${req.method.parent.typeName}/${req.method.name}`)) return next(req);
    if (open >= max) {
      throw new ConnectError(
        `This server is holding as many watches as it may (${max}); watch again in a few seconds, or read the scan meanwhile.`,
        Code.ResourceExhausted,
      );
    }
    open++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      open--;
    };
    // Aborted when the call ends in any way, also before its stream was read at all.
    req.signal.addEventListener('abort', release, { once: true });
    return whenAnswered(() => next(req), release);
  };
}

/**
 * Fails a request whose message has not all arrived within `timeoutMs`: the body's reader gets
 * DEADLINE_EXCEEDED, which connect-node answers as the call's status (HTTP/2); over HTTP/1.1 this closes
 * the connection. Not for client- or bidi-streaming calls, whose requests last as long as the call.
 */
export function boundRequestRead(
  req: http.IncomingMessage | http2.Http2ServerRequest,
  timeoutMs: number,
): void {
  if (req.complete) return;
  const timer = setTimeout(() => {
    if (!req.complete)
      req.destroy(
        new ConnectError(
          `The request did not arrive whole within ${timeoutMs / 1000} s.`,
          Code.DeadlineExceeded,
        ),
      );
  }, timeoutMs);
  timer.unref();
  const clear = () => clearTimeout(timer);
  req.once('end', clear);
  req.once('close', clear);
}

/** Keepalive pings and the idle bound (ServerLimits) on one HTTP/2 connection. */
export function watchSession(session: http2.ServerHttp2Session, limits: ServerLimits): void {
  let open = 0;
  let idle: NodeJS.Timeout | undefined;
  const armIdle = () => {
    idle = setTimeout(() => session.close(), limits.idleTimeoutMs);
    idle.unref();
  };
  session.on('stream', (stream) => {
    open++;
    clearTimeout(idle);
    stream.once('close', () => {
      if (--open === 0 && !session.closed) armIdle();
    });
  });
  armIdle();
  const pings = setInterval(() => {
    if (session.destroyed || session.connecting) return;
    const unanswered = setTimeout(() => session.destroy(), PING_TIMEOUT_MS);
    unanswered.unref();
    const sent = session.ping((err) => {
      clearTimeout(unanswered);
      if (err && !session.destroyed) session.destroy();
    });
    if (!sent) clearTimeout(unanswered); // too many pings unanswered already: the earlier timers decide
  }, limits.keepaliveIntervalMs);
  pings.unref();
  session.once('close', () => {
    clearInterval(pings);
    clearTimeout(idle);
  });
}

/** http2 options of a server under these limits. */
export function http2Options(limits: ServerLimits): http2.ServerOptions {
  return {
    settings: { maxConcurrentStreams: limits.maxStreamsPerConnection },
    streamResetBurst: limits.resetBurst,
    streamResetRate: limits.resetsPerSecond,
  };
}
