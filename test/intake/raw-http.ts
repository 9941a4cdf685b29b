/**
 * HTTP/1.1 over a bare TCP socket, for what fetch hides: which connection a request went over, how many
 * bytes a client got to send before the answer came, and how the connection ended.
 */
import { connect, type Socket } from 'node:net';
import { setImmediate as yieldToEvents } from 'node:timers/promises';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export class RawConnection {
  readonly socket: Socket;
  #buffer = Buffer.alloc(0);
  #waiting: (() => void) | undefined;
  ended = false;
  error: Error | undefined;
  closed: Promise<void>;

  constructor(base: string) {
    const url = new URL(base);
    this.socket = connect(Number(url.port), url.hostname);
    this.socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      this.#waiting?.();
    });
    this.socket.on('end', () => {
      this.ended = true;
      this.#waiting?.();
    });
    this.socket.on('error', (err) => {
      this.error = err;
      this.#waiting?.();
    });
    this.closed = new Promise((done) => this.socket.once('close', () => done()));
  }

  /** Whether a whole response has arrived (without consuming it). */
  get hasResponse(): boolean {
    return parse(this.#buffer) !== undefined;
  }

  /** The next whole response on this connection. */
  async response(): Promise<RawResponse> {
    for (;;) {
      const parsed = parse(this.#buffer);
      if (parsed) {
        this.#buffer = this.#buffer.subarray(parsed.length);
        return parsed.response;
      }
      if (this.ended || this.error) throw new Error(`connection ended before a response: ${this.error}`);
      await new Promise<void>((wake) => {
        this.#waiting = wake;
      });
      this.#waiting = undefined;
    }
  }

  write(data: string | Buffer): boolean {
    return this.socket.write(data);
  }

  /**
   * Sends up to `total` bytes of body in chunks (framed when `chunked`), stopping as soon as a response has
   * arrived (unless `whole`) or the connection is gone; answers how many body bytes were written.
   */
  async sendBody(total: number, chunked: boolean, whole = false): Promise<number> {
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    let written = 0;
    while (written < total && (whole || !this.hasResponse) && !this.ended && !this.error) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - written));
      const framed = chunked
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece;
      written += piece.length;
      if (!this.socket.write(framed)) {
        await Promise.race([
          new Promise((r) => this.socket.once('drain', r)),
          new Promise((r) => this.socket.once('data', r)),
          this.closed,
        ]);
      } else {
        await yieldToEvents();
      }
    }
    return written;
  }
}

function parse(buffer: Buffer): { response: RawResponse; length: number } | undefined {
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (buffer.length < end + 4 + length) return undefined;
  return {
    response: {
      status: Number(statusLine!.split(' ')[1]),
      headers,
      body: buffer.subarray(end + 4, end + 4 + length).toString('utf8'),
    },
    length: end + 4 + length,
  };
}
