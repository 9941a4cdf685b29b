/** Local ports: finding a free one, and waiting for a process to listen (supervisor, benchmarks, tests). */
import { readFileSync } from 'node:fs';
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
/** The lowest port freePort hands out: above the well-known services' and most servers' own. */
const LOWEST = 10_000;

/**
 * A port nothing listens on right now, and never one this process was given before: the system may offer a
 * port it just freed again at once, and two servers given the same port collide. Where the system says which
 * ports it takes for the local end of outgoing connections (Linux), one below that range: a port from inside
 * it can be taken by any connection made before its server listens — a database pool's, say — and the
 * server then fails with EADDRINUSE (seen for a metrics endpoint, started after core's pool connected).
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (;;) {
    const wanted = below > LOWEST + 1000 ? LOWEST + Math.floor(Math.random() * (below - LOWEST)) : 0;
    const port = await listenOnce(wanted);
    if (port === undefined || givenOut.has(port)) continue;
    givenOut.add(port);
    return port;
  }
}

/** The first port of the system's range for outgoing connections, or 0 where it cannot be read. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : 0;
  } catch {
    return 0;
  }
}

/** Listens on `port` (0: one the system picks) and closes again: the port, or undefined when it is taken. */
function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(undefined) : reject(err),
    );
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}
