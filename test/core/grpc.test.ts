import assert from 'node:assert/strict';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { loadProto as load, unary } from '../support/grpc-js.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('core over gRPC (@grpc/grpc-js client)', () => {
  let stack: Stack;
  let scans: any;
  let target: string;

  before(async () => {
    stack = await startStack('grpc');
    target = new URL(stack.coreUrl).host;
    const { skinmatch } = load('skinmatch/v1/scan.proto');
    scans = new skinmatch.v1.ScanService(target, grpc.credentials.createInsecure());
  });
  after(async () => {
    scans?.close();
    await stack?.close();
  });

  it('StartScan, GetScan, WatchScan and DeleteScan', async () => {
    const started: any = await unary(scans, 'startScan', { source: 'grpc' });
    assert.match(started.accessToken, /^[a-f0-9]{64}$/);
    const identity = { runId: started.runId, accessToken: started.accessToken };
    const got: any = await unary(scans, 'getScan', identity);
    assert.equal(got.scan.status, 'SCAN_STATUS_AWAITING_UPLOAD');
    assert.equal(got.scan.nextAction, 'NEXT_ACTION_SHARE_UPLOAD_URL');

    const states: string[] = [];
    const ended = new Promise<grpc.ServiceError | undefined>((done) => {
      const call = scans.watchScan(identity);
      call.on('data', (msg: any) => states.push(`${msg.scan.status}:${msg.scan.stage}:${msg.scan.progress}`));
      call.on('error', done);
      call.on('end', () => done(undefined));
    });
    await waitFor(() => states.length === 1);
    // What the scan worker does as analysis goes on: each write reaches the watcher.
    const sql = (q: string) => stack.orm.em.getConnection().execute(q, [identity.runId]);
    await sql(`update scans set status = 'queued', updated_at = now() where id = ?`);
    await waitFor(() => states.length === 2);
    await sql(
      `update scans set status = 'analyzing', stage = 'measuring', progress = 60, updated_at = now() where id = ?`,
    );
    await waitFor(() => states.length === 3);
    await sql(
      `update scans set status = 'complete', progress = 100, stage = '', updated_at = now() where id = ?`,
    );
    assert.equal(await ended, undefined, 'the stream ends by itself once the scan is complete');
    assert.deepEqual(states, [
      'SCAN_STATUS_AWAITING_UPLOAD::0',
      'SCAN_STATUS_QUEUED::0',
      'SCAN_STATUS_ANALYZING:measuring:60',
      'SCAN_STATUS_COMPLETE::100',
    ]);

    await unary(scans, 'deleteScan', identity);
    await assert.rejects(unary(scans, 'getScan', identity), (err: grpc.ServiceError) => {
      assert.equal(err.code, grpc.status.NOT_FOUND);
      return true;
    });
  });

  it('errors carry google.rpc.ErrorInfo with the spec code as reason', async () => {
    await assert.rejects(
      unary(scans, 'getScan', { runId: 'nope', accessToken: 'a'.repeat(64) }),
      (err: any) => {
        assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
        const bin = err.metadata.get('grpc-status-details-bin')[0] as Buffer;
        assert.ok(bin.includes(Buffer.from('invalid_input')) && bin.includes(Buffer.from('skinmatch')));
        return true;
      },
    );
    await assert.rejects(
      unary(scans, 'startScan', { source: '' }),
      (err: any) => err.code === grpc.status.INVALID_ARGUMENT,
    );
  });

  it('WatchScan on a scan deleted while watched ends with NOT_FOUND', async () => {
    const started: any = await unary(scans, 'startScan', { source: 'grpc' });
    const identity = { runId: started.runId, accessToken: started.accessToken };
    let seen = 0;
    const ended = new Promise<grpc.ServiceError | undefined>((done) => {
      const call = scans.watchScan(identity);
      call.on('data', () => seen++);
      call.on('error', done);
      call.on('end', () => done(undefined));
    });
    await waitFor(() => seen === 1);
    await unary(scans, 'deleteScan', identity);
    assert.equal((await ended)?.code, grpc.status.NOT_FOUND);
  });

  it('serves the Connect and gRPC-Web protocols on the same port', async () => {
    for (const createTransport of [createConnectTransport, createGrpcWebTransport]) {
      const client = createClient(ScanService, createTransport({ baseUrl: stack.coreUrl, httpVersion: '2' }));
      const started = await client.startScan({ source: 'web' });
      const got = await client.getScan({ runId: started.runId, accessToken: started.accessToken });
      assert.equal(got.scan?.runId, started.runId);
      await assert.rejects(client.getScan({ runId: started.runId, accessToken: '0'.repeat(64) }), (err) => {
        assert.equal(ConnectError.from(err).code, Code.NotFound);
        assert.equal(errorReason(err), 'not_found');
        return true;
      });
    }
  });

  it('grpc.health.v1 answers SERVING for core and its services, NOT_FOUND for others', async () => {
    const { grpc: pkg } = load('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(target, grpc.credentials.createInsecure());
    assert.equal(((await unary(health, 'check', { service: '' })) as any).status, 'SERVING');
    assert.equal(
      ((await unary(health, 'check', { service: 'skinmatch.v1.ScanService' })) as any).status,
      'SERVING',
    );
    await assert.rejects(
      unary(health, 'check', { service: 'nope.Service' }),
      (err: any) => err.code === grpc.status.NOT_FOUND && err.details === 'unknown service "nope.Service"',
    );
    // A long name is not echoed whole (it used to come back in full: a megabyte asked, a megabyte told).
    await assert.rejects(unary(health, 'check', { service: 'x'.repeat(1_000_000) }), (err: any) => {
      assert.equal(err.code, grpc.status.NOT_FOUND);
      assert.equal(err.details, `unknown service "${'x'.repeat(80)}…"`);
      return true;
    });
    health.close();
  });

  it('grpc.health.v1 Watch of an unknown service says SERVICE_UNKNOWN and stays open, as health.proto asks', async () => {
    const { grpc: pkg } = load('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(target, grpc.credentials.createInsecure());
    const call = health.watch({ service: 'nope.Service' });
    const seen: string[] = [];
    call.on('data', (res: any) => seen.push(res.status));
    const ended = new Promise<number>((resolve) =>
      call.on('status', (s: grpc.StatusObject) => resolve(s.code)),
    );
    call.on('error', () => {});
    // The old Watch ended with OK 16 ms after its one answer: still open 1.5 s after it (a loaded machine
    // can take longer than that to bring the answer itself).
    await waitFor(() => seen.length > 0, 20_000);
    const early = await Promise.race([ended, new Promise((r) => setTimeout(() => r('open'), 1500))]);
    assert.equal(early, 'open');
    assert.deepEqual(seen, ['SERVICE_UNKNOWN']);
    call.cancel();
    assert.equal(await ended, grpc.status.CANCELLED);
    health.close();
  });

  it('server reflection v1 lists the services and returns their descriptors', async () => {
    const { grpc: pkg } = load('grpc/reflection/v1/reflection.proto');
    const reflection = new pkg.reflection.v1.ServerReflection(target, grpc.credentials.createInsecure());
    const call = reflection.serverReflectionInfo();
    const answers: any[] = [];
    const done = new Promise((end) => {
      call.on('data', (msg: any) => answers.push(msg));
      call.on('end', end);
    });
    call.write({ listServices: '' });
    call.write({ fileContainingSymbol: 'skinmatch.v1.ScanService.GetScan' });
    call.write({ fileByFilename: 'nope.proto' });
    call.end();
    await done;
    reflection.close();
    const names = answers[0].listServicesResponse.service.map((s: any) => s.name).sort();
    assert.deepEqual(names, [
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
      'skinmatch.v1.AccountService',
      'skinmatch.v1.CatalogService',
      'skinmatch.v1.IntakeService',
      'skinmatch.v1.MatchService',
      'skinmatch.v1.OAuthStateService',
      'skinmatch.v1.ScanService',
      'skinmatch.v1.StatusService',
    ]);
    const files = answers[1].fileDescriptorResponse.fileDescriptorProto as Buffer[];
    assert.ok(files[0]!.includes(Buffer.from('skinmatch/v1/scan.proto')));
    assert.ok(files.some((f) => f.includes(Buffer.from('google/protobuf/timestamp.proto'))));
    assert.equal(answers[2].errorResponse.errorCode, grpc.status.NOT_FOUND);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
