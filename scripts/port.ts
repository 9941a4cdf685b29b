/** Waiting for a local process to listen, for the supervisor and the benchmarks. */
import { connect } from 'node:net';

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
