/** Local ports: finding a free one, and waiting for a process to listen (supervisor, benchmarks, tests). */
import { type AddressInfo, connect, createServer } from 'node:net';

export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, host, () => {
      socket.end();
      done(true);
    });
    socket.on('error', () => done(false));
  });
}

/** Resolves once something listens on `port`; false after `timeoutMs` or when `cancelled()` says so. */
export async function waitForPort(
  port: number,
  timeoutMs = 60_000,
  cancelled = () => false,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cancelled()) {
    if (await isListening(port)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** A port nothing listens on right now, chosen by the system. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
