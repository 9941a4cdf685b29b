/**
 * A small TCP round-robin in front of replicas, as a Kubernetes Service spreads connections: each new
 * connection goes to the next backend, skipping one that refuses it (a replica that is down or draining).
 * Connection-level, like kube-proxy, so HTTP/2 clients keep one backend per connection.
 */

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface RoundRobin {
  readonly url: string;
  /** The backends' ports, in turn; a test may change the list while it runs. */
  readonly backends: number[];
  /** How many connections each backend was given, by port. */
  readonly given: Map<number, number>;
  close(): Promise<void>;
}

export async function roundRobin(initial: readonly number[]): Promise<RoundRobin> {
  const ports = [...initial];
  let next = 0;
  const given = new Map<number, number>(ports.map((port) => [port, 0]));
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.pause();
    const attempt = (left: number) => {
      if (left === 0) {
        client.destroy();
        return;
      }
      const port = ports[next++ % ports.length]!;
      const backend = connect(port, '127.0.0.1');
      let connected = false;
      backend.on('error', () => {
        if (connected) client.destroy();
        else attempt(left - 1);
      });
      backend.once('connect', () => {
        connected = true;
        given.set(port, (given.get(port) ?? 0) + 1);
        open.add(backend);
        backend.once('close', () => open.delete(backend));
        client.on('error', () => backend.destroy());
        client.once('close', () => backend.destroy());
        backend.once('close', () => client.destroy());
        client.pipe(backend).pipe(client);
        client.resume();
      });
    };
    attempt(ports.length);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    backends: ports,
    given,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise((done) => server.close(done));
    },
  };
}
