/**
 * HTTP/1.1 and HTTP/2 cleartext (prior knowledge) on one port. Node's `allowHTTP1` works only on a TLS
 * server (it picks the protocol by ALPN): a plain `http2.createServer` answered an HTTP/1.1 request with
 * HTTP/2 frames ("Parse Error: Expected HTTP/", curl's "Received HTTP/0.9"), so Connect and gRPC-Web
 * clients over HTTP/1.1 (fetch, browsers, connect-go's default for http://) could not call at all. Here a
 * plain TCP server reads each connection's first bytes: the HTTP/2 connection preface goes to an HTTP/2
 * server, anything else to an HTTP/1.1 server, both with the same request handler. An `Upgrade: h2c`
 * request is answered over HTTP/1.1 (the upgrade is optional, RFC 9113 dropped it).
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export type Handler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

export interface DualServer {
  /** The listening socket's server (listen and close it). */
  readonly tcp: net.Server;
  readonly h2: http2.Http2Server;
  /** Opens HTTP/1.1 connections, gracefully: idle ones end now, busy ones after their last answer. */
  closeHttp1(): void;
  /** Ends every HTTP/1.1 connection now. */
  destroyHttp1(): void;
}

export interface DualServerOptions {
  readonly h2: http2.ServerOptions;
  /** A connection that has not sent its first bytes (which say its protocol) by then is closed. */
  readonly firstBytesTimeoutMs: number;
  /** An HTTP/1.1 request whose headers have not all arrived by then is answered 408 and its connection closed. */
  readonly headersTimeoutMs: number;
}

/** How often the HTTP/1.1 server checks its connections' header deadlines. */
const HEADERS_CHECK_INTERVAL_MS = 1000;

export function createDualServer(handler: Handler, options: DualServerOptions): DualServer {
  const h2 = http2.createServer(options.h2, handler);
  // The body's read is bounded per call (server-limits.ts); the headers' here. Node checks both deadlines
  // only once the server has emitted 'listening', which this one never does (the TCP server listens):
  // emitted by hand, or a client sending a header line every few seconds held its connection for good.
  const h1 = http.createServer(
    {
      headersTimeout: options.headersTimeoutMs,
      requestTimeout: 0,
      connectionsCheckingInterval: HEADERS_CHECK_INTERVAL_MS,
    },
    handler,
  );
  h1.emit('listening');
  // Busy HTTP/1.1 connections (answers in flight on them), so that a closing server ends each after its answer.
  const busy = new Map<net.Socket, number>();
  let closing = false;
  h1.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
  });
  h1.on('connection', (socket: net.Socket) => {
    busy.set(socket, 0);
    socket.once('close', () => busy.delete(socket));
  });
  const tcp = net.createServer((socket) => {
    let received = Buffer.alloc(0);
    socket.setTimeout(options.firstBytesTimeoutMs, () => socket.destroy());
    const onError = () => socket.destroy();
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const n = Math.min(received.length, PREFACE.length);
      const isH2 = received.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && n < PREFACE.length) return; // the preface's start: wait for the rest
      socket.off('data', onData);
      socket.off('error', onError);
      socket.setTimeout(0);
      if (isH2) {
        // The HTTP/2 session reads what is unshifted before the socket's own data.
        socket.pause();
        socket.unshift(received);
        h2.emit('connection', socket);
      } else if (closing) {
        socket.destroy();
      } else {
        // The HTTP/1.1 parser takes over the socket's reads; what was read already is handed to it as data.
        h1.emit('connection', socket);
        socket.emit('data', received);
      }
    };
    socket.on('error', onError);
    socket.on('data', onData);
  });
  return {
    tcp,
    h2,
    closeHttp1() {
      closing = true;
      h1.close(); // stops the deadlines' check
      for (const [socket, requests] of busy) if (requests === 0) socket.destroy();
    },
    destroyHttp1() {
      closing = true;
      h1.close();
      for (const socket of busy.keys()) socket.destroy();
    },
  };
}
