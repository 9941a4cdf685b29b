/**
 * Clients that send requests and never read the answers: once the socket's buffers are full nothing moves
 * on the connection, and the façade's server closes it after its idle bound (server.ts, `idleTimeoutMs`).
 * Node's default held such connections, and their answers, for ever. A client that does read is never cut,
 * however long its answer takes to stream, nor is a request whose answer comes within the bound.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { createFacadeServer, serverBounds } from '../../facade/server.ts';
import { until } from '../support/processes.ts';

const IDLE_MS = 1000;
/** Larger than loopback's socket buffers on both sides, so an unread answer cannot all be written. */
const BIG = Buffer.alloc(48 * 1024 * 1024, 'a');

describe('clients that do not read their answers', () => {
  let server: http.Server;
  let port: number;
  const serverSockets: net.Socket[] = [];

  before(async () => {
    server = createFacadeServer({ ...serverBounds(false, 1024 * 1024), idleTimeoutMs: IDLE_MS });
    server.on('connection', (socket: net.Socket) => serverSockets.push(socket));
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      if (req.url === '/big') return res.end(BIG);
      if (req.url === '/small') return res.end('ok');
      if (req.url === '/late') return setTimeout(() => res.end('late'), IDLE_MS / 2);
      // A stream of 8 chunks, IDLE_MS / 2 apart: four times the bound in all, never silent that long.
      let sent = 0;
      const timer = setInterval(() => {
        res.write(`chunk ${++sent}\n`);
        if (sent === 8) {
          clearInterval(timer);
          res.end();
        }
      }, IDLE_MS / 2);
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    port = (server.address() as net.AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  });

  /** A connection that sends `requests` and reads nothing; its server-side socket. */
  async function silentClient(requests: string[]) {
    const before = serverSockets.length;
    const client = net.connect({ port, host: '127.0.0.1' });
    client.on('error', () => {}); // the server's reset
    client.pause();
    await new Promise((done) => client.once('connect', done));
    client.write(requests.map((path) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`).join(''));
    const serverSide = (await until(
      'the server to take the connection',
      () => serverSockets[before],
    )) as net.Socket;
    return { client, serverSide };
  }

  it('a big answer never read: the connection is closed', async () => {
    const { client, serverSide } = await silentClient(['/big']);
    await until('the server to close the silent connection', () => serverSide.destroyed, 20_000);
    client.destroy();
  });

  it('after a first answer read on a keep-alive connection, the same for the next, unread one', async () => {
    const { client, serverSide } = await silentClient(['/small', '/big']);
    await until('the server to close the silent connection', () => serverSide.destroyed, 20_000);
    client.destroy();
  });

  it('an answer streamed for longer than the bound, read as it comes, arrives whole', async () => {
    const text = await new Promise<string>((done, fail) =>
      http.get({ port, host: '127.0.0.1', path: '/stream' }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => done(body));
        res.on('error', fail);
      }),
    );
    assert.equal(text.split('\n').filter(Boolean).length, 8);
    assert.match(text, /chunk 8\n$/);
  });

  it('an answer that comes within the bound is served', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/late`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'late');
  });
});
