/**
 * A raw HTTP/1.1 connection to the façade, for what fetch cannot send: partial headers, bodies that stop or
 * trickle, answers read before the request is whole. `localAddress` (127.0.0.2, …) is another network.
 */
import net from 'node:net';

export interface Raw {
  readonly socket: net.Socket;
  /** Milliseconds from the connection's opening to its close. */
  readonly closed: Promise<number>;
  readonly answer: () => { status: number; headers: Record<string, string>; body: any };
  /** Everything received so far. */
  readonly text: () => string;
}

export async function connect(baseUrl: string, localAddress = '127.0.0.1'): Promise<Raw> {
  const socket = net.connect({ port: Number(new URL(baseUrl).port), host: '127.0.0.1', localAddress });
  const opened = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => {}); // writes after the server closed: EPIPE
  const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - opened)));
  await new Promise((done) => socket.once('connect', done));
  const answer = () => {
    const [head = '', body = ''] = text.split('\r\n\r\n');
    const [status, ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 2),
      ]),
    );
    return { status: Number(status?.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
  };
  return { socket, closed, answer, text: () => text };
}
