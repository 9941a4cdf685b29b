/**
 * The `grpc-message` header (or trailer) as the gRPC spec encodes it (PROTOCOL-HTTP2.md, "Responses"):
 * percent-encoded UTF-8 where only '%' and the bytes outside 0x20–0x7E are encoded. connect-node encodes
 * it with encodeURIComponent, which also encodes `, : + ; / ? # & = $ @` and the space; grpc-js decodes
 * with decodeURI, which leaves exactly those encoded ("must be fragrance%2C alcohol"). A message in the
 * spec's encoding reads alike in grpc-js (decodeURI), grpc-go (the spec's decoder) and Connect
 * (decodeURIComponent). gRPC-Web carries its trailers in the body, where Connect's encoding stays: Connect
 * and grpc-web clients decode it with decodeURIComponent.
 */
import type http from 'node:http';
import type http2 from 'node:http2';

const GRPC_MESSAGE = 'grpc-message';

/** `text` percent-encoded as the gRPC spec encodes grpc-message. */
export function grpcMessageEncoding(text: string): string {
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    encoded +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** A grpc-message value as connect-node wrote it (encodeURIComponent), in the spec's encoding. */
function reencoded(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return grpcMessageEncoding(decodeURIComponent(value));
  } catch {
    return value; // not encodeURIComponent's output: left as written
  }
}

function fixHeaders(headers: unknown): void {
  if (headers && typeof headers === 'object' && GRPC_MESSAGE in headers) {
    const record = headers as Record<string, unknown>;
    record[GRPC_MESSAGE] = reencoded(record[GRPC_MESSAGE]);
  }
}

/**
 * Makes `res` write grpc-message in the spec's encoding, whether in its trailers (the usual place) or in
 * its headers (a trailers-only answer). connect-node writes both with writeHead(status, headers) and
 * addTrailers(trailers).
 */
export function specGrpcMessages(res: http.ServerResponse | http2.Http2ServerResponse): void {
  const target = res as unknown as Record<'writeHead' | 'addTrailers', (...args: unknown[]) => unknown>;
  const writeHead = target.writeHead;
  const addTrailers = target.addTrailers;
  target.writeHead = function (this: unknown, ...args: unknown[]) {
    for (const arg of args) fixHeaders(arg);
    return writeHead.apply(this, args);
  };
  target.addTrailers = function (this: unknown, trailers: unknown) {
    fixHeaders(trailers);
    return addTrailers.call(this, trailers);
  };
}
