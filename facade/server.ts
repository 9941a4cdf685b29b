/**
 * The façade's HTTP server, with bounds on slow and greedy clients. Node's defaults let a request take 300 s
 * (requestTimeout) and its headers 60 s, checked only every 30 s, and nothing bounded how many connections
 * one network holds: a few hundred connections sending a byte now and then held the façade's sockets.
 *
 * - Headers must arrive whole within HEADERS_TIMEOUT_MS (10 s); Node answers 408 and closes the connection.
 * - A body must keep arriving at a minimum rate (facade/slow-bodies.ts): that, not a fixed bound, is what
 *   cuts a slow body, so the photo upload of a phone on a weak link is served while a trickle is not.
 *   requestTimeout is only the backstop over every route: the headers' bound, the body's grace, and the
 *   largest photo (PHOTO_MAX_BYTES) at the minimum rate (10 MiB at 32 KiB/s: 340 s in all).
 * - A connection on which nothing moves for IDLE_TIMEOUT_MS (60 s) while a request is being served is closed:
 *   a client that sends requests and never reads the answers (a big page asset, pipelined) left its answers
 *   stuck in the socket's buffers, and Node's default (`server.timeout` 0) held such connections, and the
 *   answers' memory, for ever (measured: 40 of them open after 70 s and counting). Nothing else in a request
 *   is silent that long: an answer waits at most the MCP request's bound (15 s) or core's (10 s), and the
 *   page's progress streams send a comment every 15 s; the bound stays past the longest answer wait.
 * - An idle keep-alive connection is closed after 5 s (Node's default) from clients; behind a proxy after
 *   65 s, longer than ingress-nginx keeps its idle upstream connections (60 s), so the proxy never sends a
 *   request on a connection the façade is closing at that moment (a 502 for the client).
 * - Without a proxy in front, a network (an IPv4 address, an IPv6 /64: the rate limits' key) holds at most
 *   CONNECTIONS_PER_NETWORK connections at once. A connection past it is not served: its first request is
 *   answered 429 `rate_limited` and the connection closed (slow-bodies.ts), and one that sends no request is
 *   closed by the headers' bound. Behind a proxy every connection comes from the proxy, so there is no
 *   such bound here (it would cap the proxy, everybody at once): the proxy bounds its clients' connections
 *   and headers (ingress-nginx: client_header_timeout, limit-connections), and the façade bounds the
 *   bodies of each client network, by its X-Forwarded-For address, as the rate limits do (slow-bodies.ts).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../services/shared/logger.ts';
import { slowClientRefusals } from '../services/shared/metrics.ts';
import { countNodeAnswer } from './http-metrics.ts';
import { networkOf } from './rate-limits.ts';
import { DEFAULT_BODY_BOUNDS, refuseConnection } from './slow-bodies.ts';

export const HEADERS_TIMEOUT_MS = 10_000;
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const PROXY_KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const IDLE_TIMEOUT_MS = 60_000;
/** How much longer than the longest answer wait a connection may stay silent. */
const IDLE_MARGIN_MS = 10_000;
/** The MCP request's bound (MCP_REQUEST_TIMEOUT_MS), by default the longest an answer waits. */
const DEFAULT_ANSWER_WAIT_MS = 15_000;
/**
 * Connections one network may hold open at once: a browser opens up to 6, an upload page's progress
 * streams up to 16 (page-streams.ts), and a few households or an office share an IPv4 address.
 */
export const CONNECTIONS_PER_NETWORK = 64;
/** How often Node checks the headers' and the request's deadlines (its default, 30 s, added up to 30 s). */
const CHECK_INTERVAL_MS = 1000;

export interface ServerBounds {
  readonly headersTimeoutMs: number;
  /** The whole request, headers and body, on any route (the backstop: see above). */
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Nothing read or written on a connection for this long while serving a request: closed. */
  readonly idleTimeoutMs: number;
  /** Open connections per network; 0: not bounded (behind a proxy). */
  readonly connectionsPerNetwork: number;
}

/**
 * The bounds for a façade with or without a proxy in front, sized for its photo bound and the longest an
 * answer may wait (the MCP request's and core's bounds, MCP_REQUEST_TIMEOUT_MS and CORE_TIMEOUT_MS).
 */
export function serverBounds(
  trustProxy: boolean,
  photoMaxBytes: number,
  answerWaitMs = DEFAULT_ANSWER_WAIT_MS,
): ServerBounds {
  const { graceMs, minBytesPerSecond } = DEFAULT_BODY_BOUNDS;
  return {
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: HEADERS_TIMEOUT_MS + graceMs + Math.ceil((photoMaxBytes / minBytesPerSecond) * 1000),
    keepAliveTimeoutMs: trustProxy ? PROXY_KEEP_ALIVE_TIMEOUT_MS : KEEP_ALIVE_TIMEOUT_MS,
    idleTimeoutMs: Math.max(IDLE_TIMEOUT_MS, answerWaitMs + IDLE_MARGIN_MS),
    connectionsPerNetwork: trustProxy ? 0 : CONNECTIONS_PER_NETWORK,
  };
}

/**
 * An HTTP server with these bounds; the app is attached by the caller (`server.on('request', …)`). A
 * client whose headers missed their bound is logged as the façade's other refusals of slow clients are.
 */
export function createFacadeServer(bounds: ServerBounds, logger?: Logger): http.Server {
  const server = http.createServer({
    headersTimeout: bounds.headersTimeoutMs,
    requestTimeout: bounds.requestTimeoutMs,
    keepAliveTimeout: bounds.keepAliveTimeoutMs,
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
  });
  server.keepAliveTimeout = bounds.keepAliveTimeoutMs;
  // With no 'timeout' listener, Node destroys a connection silent this long (its keep-alive wait aside).
  server.timeout = bounds.idleTimeoutMs;
  // `Expect: 100-continue` is answered by the app once a route reads the body (body.ts continueWhenRead),
  // not by Node as soon as the headers arrive: a body refused unread is then never sent.
  server.on('checkContinue', (req, res) => server.emit('request', req, res));
  if (bounds.connectionsPerNetwork > 0) boundConnections(server, bounds.connectionsPerNetwork);
  if (logger) server.on('clientError', (err, socket) => clientError(err, socket, logger));
  return server;
}

/** Node's answers to a connection's error outside any request (its own, for want of a listener). */
const ANSWERS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * What Node does with a connection's error when nobody listens (an answer if none went out yet, then the
 * connection closed), and, for headers that missed their bound (408), one line: `slow client refused`.
 * An answer written here is counted as the app's requests are (http-metrics.ts).
 */
function clientError(err: NodeJS.ErrnoException, socket: Duplex, logger: Logger): void {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    slowClientRefusals.inc({ bound: 'headers' });
    logger.warn({ status: 408, bound: 'headers' }, 'slow client refused');
  }
  const inFlight = (socket as Socket & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const answer = ANSWERS[err.code ?? ''] ?? '400 Bad Request';
    socket.write(`HTTP/1.1 ${answer}\r\nConnection: close\r\n\r\n`);
    countNodeAnswer(Number(answer.slice(0, 3)), inFlight);
  }
  socket.destroy(err);
}

function boundConnections(server: http.Server, perNetwork: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const network = networkOf(socket.remoteAddress ?? '');
    const count = open.get(network) ?? 0;
    if (count >= perNetwork) {
      refuseConnection(socket);
      return;
    }
    open.set(network, count + 1);
    socket.once('close', () => {
      const left = (open.get(network) ?? 1) - 1;
      if (left > 0) open.set(network, left);
      else open.delete(network);
    });
  });
}
