/**
 * The soak's mixed load on a running stack, as agents, browsers and internal systems use it: MCP tool calls
 * (good, refused, unknown scans, bad input, 401s), clients that go away mid-request, gRPC calls with
 * @grpc/grpc-js (answered, cancelled, past their deadline, a WatchScan dropped mid-way), and scans taken
 * through the upload page to an analysed result (bot check, consent, photo, /events opened and dropped).
 * Each operation counts the HTTP requests and RPCs it sent.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { connect } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { consentOnPage, pageFetch, postPhoto } from '../intake/scan-page-support.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { callTool, JSON_RPC_HEADERS, rpc } from '../support/mcp.ts';
import { register } from '../support/oauth-http.ts';

export interface Scan {
  readonly run_id: string;
  readonly access_token: string;
}

export interface Target {
  readonly base: string;
  readonly facadePort: number;
  readonly coreAddress: string;
}

export class Load {
  requests = 0;
  failures = new Map<string, number>();
  /** Recent scans the agent started (a bounded ring). */
  readonly #scans: Scan[] = [];
  readonly #scanClient: any;
  readonly #target: Target;

  constructor(target: Target) {
    this.#target = target;
    const { skinmatch } = loadProto('skinmatch/v1/scan.proto');
    this.#scanClient = new skinmatch.v1.ScanService(target.coreAddress, grpc.credentials.createInsecure());
  }

  close(): void {
    this.#scanClient.close();
  }

  #fail(what: string, err: unknown) {
    const key = `${what}: ${String((err as Error)?.message ?? err).slice(0, 120)}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  #remember(scan: Scan) {
    this.#scans.push({ run_id: scan.run_id, access_token: scan.access_token });
    if (this.#scans.length > 200) this.#scans.shift();
  }

  #some(): Scan | undefined {
    return this.#scans[Math.floor(Math.random() * this.#scans.length)];
  }

  async #tool(name: string, args: unknown) {
    this.requests++;
    return callTool(this.#target.base, name, args);
  }

  /** One agent/internal operation, drawn at random. */
  readonly operations: Record<string, () => Promise<unknown>> = {
    'tools/list': async () => {
      this.requests++;
      await rpc(this.#target.base, 'tools/list');
    },
    start: async () =>
      this.#remember((await this.#tool('start_skin_scan', { source: 'soak' })).structuredContent as Scan),
    get: async () => {
      const scan = this.#some();
      if (scan) await this.#tool('get_skin_scan', scan);
    },
    'get unknown': () => this.#tool('get_skin_scan', { run_id: randomUUID(), access_token: 'a'.repeat(64) }),
    'bad input': () => this.#tool('get_skin_scan', { run_id: 'not-a-uuid', extra: { x: 1 } }),
    'unknown tool': async () => {
      this.requests++;
      const name = `no_such_tool_${Math.floor(Math.random() * 1e6)}`;
      await rpc(this.#target.base, 'tools/call', { name, arguments: {} });
    },
    recommend: async () => {
      const scan = this.#some();
      if (scan) await this.#tool('recommend_products', scan);
    },
    delete: async () => {
      const scan = this.#scans.shift();
      if (scan) await this.#tool('delete_skin_scan', scan);
    },
    'malformed JSON': async () => {
      this.requests++;
      await (
        await fetch(`${this.#target.base}/mcp`, {
          method: 'POST',
          headers: JSON_RPC_HEADERS,
          body: '{"jsonrpc":',
        })
      ).text();
    },
    '401': async () => {
      this.requests++;
      await rpc(this.#target.base, 'tools/list', undefined, '/mcp/account');
    },
    'unknown path': async () => {
      this.requests++;
      await (await fetch(`${this.#target.base}/scan/${randomUUID()}/nothing/${randomUUID()}`)).text();
    },
    register: async () => {
      this.requests++;
      await register(this.#target.base);
    },
    health: async () => {
      this.requests++;
      await (await fetch(`${this.#target.base}/health`)).text();
    },
    'from a new network': () => this.#fromNewNetwork(),
    'gone mid-body': () => this.#rawAndDrop(true),
    'gone before answer': () => this.#rawAndDrop(false),
    'grpc start+get': async () => {
      this.requests += 2;
      const scan = await unary<Scan>(this.#scanClient, 'startScan', { source: 'soak-grpc' });
      await unary(this.#scanClient, 'getScan', {
        runId: (scan as any).runId,
        accessToken: (scan as any).accessToken,
      });
    },
    'grpc deadline': async () => {
      this.requests++;
      await new Promise<void>((done) =>
        this.#scanClient.getScan(
          { runId: randomUUID(), accessToken: 'a'.repeat(64) },
          { deadline: Date.now() + 1 },
          () => done(),
        ),
      );
    },
    'grpc cancelled': async () => {
      this.requests++;
      await new Promise<void>((done) => {
        const call = this.#scanClient.startScan({ source: 'soak-cancel' }, () => done());
        setImmediate(() => call.cancel());
      });
    },
    'grpc watch dropped': async () => {
      const scan = this.#some();
      if (!scan) return;
      this.requests++;
      await new Promise<void>((done) => {
        const call = this.#scanClient.watchScan({ runId: scan.run_id, accessToken: scan.access_token });
        call.on('data', () => call.cancel());
        call.on('error', () => done());
        call.on('end', () => done());
      });
    },
  };

  /** start_skin_scan from another loopback address each time: what the façade keeps per network. */
  #fromNewNetwork(): Promise<void> {
    this.requests++;
    const octet = () => 1 + Math.floor(Math.random() * 254);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'start_skin_scan', arguments: { source: 'soak-network' } },
    });
    return new Promise((done, fail) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.#target.facadePort,
          localAddress: `127.${octet()}.${octet()}.${octet()}`,
          method: 'POST',
          path: '/mcp',
          headers: { ...JSON_RPC_HEADERS, host: `localhost:${this.#target.facadePort}` },
          agent: false,
        },
        (res) => {
          res.resume();
          res.on('end', () => done());
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  }

  /** A POST /mcp sent by hand, the socket destroyed halfway through the body or before the answer. */
  #rawAndDrop(midBody: boolean): Promise<void> {
    this.requests++;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    return new Promise((done) => {
      const socket = connect(this.#target.facadePort, '127.0.0.1', () => {
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${this.#target.facadePort}\r\ncontent-type: application/json\r\n` +
            `accept: application/json, text/event-stream\r\ncontent-length: ${body.length}\r\n\r\n`,
        );
        socket.write(midBody ? body.slice(0, 10) : body);
        setTimeout(() => socket.destroy(), midBody ? 5 : 0);
      });
      socket.on('error', () => {});
      socket.on('close', () => done());
    });
  }

  /** One draw of the agent/internal mix. */
  async once(): Promise<void> {
    const names = Object.keys(this.operations);
    const name = names[Math.floor(Math.random() * names.length)]!;
    try {
      await this.operations[name]!();
    } catch (err) {
      this.#fail(name, err);
    }
  }

  /**
   * A person's scan end to end on the upload page: the bot check and consent, /events opened and dropped
   * after its first state, the photo uploaded, the agent polling until the analysis ends, a match, and
   * (every other time) the scan deleted.
   */
  async upload(photo: Uint8Array): Promise<void> {
    const { base } = this.#target;
    try {
      const scan = (await this.#tool('start_skin_scan', { source: 'soak-page' })).structuredContent as Scan;
      this.requests += 2; // the challenge and the consent
      const secret = await consentOnPage(base, scan.run_id);
      await this.#dropEvents(scan.run_id, secret);
      this.requests++;
      const res = await postPhoto(base, scan.run_id, photo, { secret });
      if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      await this.#dropEvents(scan.run_id, secret);
      for (let polls = 0; polls < 600; polls++) {
        const state = (await this.#tool('get_skin_scan', scan)).structuredContent;
        if (state.status === 'complete' || state.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await this.#tool('recommend_products', scan);
      if (Math.random() < 0.5) await this.#tool('delete_skin_scan', scan);
      else this.#remember(scan);
    } catch (err) {
      this.#fail('upload', err);
    }
  }

  /** /scan/:id/events read until its first state, then dropped. */
  async #dropEvents(runId: string, secret: string): Promise<void> {
    this.requests++;
    const stop = new AbortController();
    const res = await pageFetch(this.#target.base, `/scan/${runId}/events`, { secret, signal: stop.signal });
    const reader = res.body!.getReader();
    await reader.read().catch(() => {});
    stop.abort();
  }
}
