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

/** Ports this process has been given: never given twice. */
const givenOut = new Set<number>();

/**
 * A port nothing listens on right now, chosen by the system, and never one this process was given before:
 * the system may offer a port it just freed again at once, and two servers given the same port collide.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await systemPort();
    if (givenOut.has(port)) continue;
    givenOut.add(port);
    return port;
  }
}

function systemPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
