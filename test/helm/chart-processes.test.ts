/**
 * The processes started as the chart starts them: the migration Job's, then inference, core and the
 * façade, each with exactly the environment its Deployment gives it (the ConfigMap and its own keys of the
 * chart's Secret, as rendered by Helm), in production mode on a fresh test database. Only what a cluster
 * provides is replaced: Service names by 127.0.0.1 and the ports by free ones. A variable the chart misses
 * or misspells, or a secret a process needs but is not given, fails here instead of in a cluster.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus } from '../../gen/grpc/health/v1/health_pb.ts';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { waitForReady } from '../../scripts/ready.ts';
import { createTestDatabase } from '../support/database.ts';
import { find, type Manifest, render } from '../support/helm.ts';

type EnvEntry = { name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } };

const LOG_DIR = resolve('.data/test-logs');

describe('the chart’s processes, started with the environment it gives them', function () {
  this.timeout(120_000);
  const children: ChildProcess[] = [];
  let database: { url: string; drop: () => Promise<void> };
  let manifests: Manifest[];
  const ports = { facade: 0, core: 0, inference: 0 };
  const metricsPorts = { facade: 0, core: 0, inference: 0 };
  // The processes' home directory: in the pod it is the image's, on the read-only root filesystem.
  const home = mkdtempSync(join(tmpdir(), 'skinmatch-home-'));

  before(async () => {
    database = await createTestDatabase();
    for (const role of ['facade', 'core', 'inference'] as const) {
      ports[role] = await freePort();
      metricsPorts[role] = await freePort();
    }
    manifests = render({
      publicBaseUrl: 'https://skin.example.com',
      database: { url: database.url },
      secrets: {
        tokenPepper: randomBytes(32).toString('hex'),
        altchaHmacKey: randomBytes(32).toString('hex'),
        oauthSigningKey: generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
        oauthCookieKeys: randomBytes(24).toString('base64url'),
        identityProviderClientSecrets: ['upstream-secret-1', 'upstream-secret-2'],
      },
      oauth: {
        identityProviders: [
          { issuer: 'https://idp-one.example.com', clientId: 'one' },
          { issuer: 'https://idp-two.example.com', clientId: 'two' },
        ],
      },
      config: { listenHost: '127.0.0.1' },
      facade: { port: ports.facade },
      core: { port: ports.core, service: { port: ports.core } },
      inference: { port: ports.inference, service: { port: ports.inference } },
      metrics: { ports: metricsPorts },
    });
  });

  after(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      ),
    );
    await database?.drop();
    rmSync(home, { recursive: true, force: true });
  });

  /** A container's environment as Kubernetes would build it from the rendered ConfigMap and Secrets. */
  function environment(pod: Manifest): NodeJS.ProcessEnv {
    const container = pod.spec.template.spec.containers[0];
    const secrets = new Map(
      manifests.filter((m) => m.kind === 'Secret').map((m) => [m.metadata.name, m.stringData ?? {}]),
    );
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home };
    for (const source of container.envFrom ?? [])
      Object.assign(env, find(manifests, 'ConfigMap', source.configMapRef.name).data);
    for (const entry of (container.env ?? []) as EnvEntry[]) {
      const ref = entry.valueFrom?.secretKeyRef;
      const value = ref ? secrets.get(ref.name)?.[ref.key] : entry.value;
      assert.ok(
        value !== undefined,
        `${entry.name}: ${ref ? `${ref.name}/${ref.key} is not in the render` : 'no value'}`,
      );
      env[entry.name] = value;
    }
    // Cluster DNS names of the Services become this machine's loopback address.
    for (const [name, value] of Object.entries(env))
      if (value?.startsWith('http://rel-skinmatch-'))
        env[name] = value.replace(/rel-skinmatch-[a-z]+/, '127.0.0.1');
    return env;
  }

  function start(role: string): ChildProcess {
    const pod = find(manifests, 'Deployment', `rel-skinmatch-${role}`);
    const args = pod.spec.template.spec.containers[0].args as string[];
    const child = spawn(process.execPath, ['scripts/role.ts', ...args], {
      env: environment(pod),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Its log joins the run's check for secrets (test/hooks.ts): this process holds production ones.
    mkdirSync(LOG_DIR, { recursive: true });
    child.stdout!.pipe(createWriteStream(join(LOG_DIR, `chart-${role}.log`)));
    let stderr = '';
    child.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('exit', (code) => {
      if (code) console.error(`${role} exited ${code}: ${stderr}`);
    });
    children.push(child);
    started.set(role, child);
    return child;
  }
  const started = new Map<string, ChildProcess>();
  /** A probe of the role's rendered container. */
  const probe = (role: string, kind: 'readinessProbe' | 'livenessProbe' | 'startupProbe') =>
    find(manifests, 'Deployment', `rel-skinmatch-${role}`).spec.template.spec.containers[0][kind];
  /** The grpc.health.v1 services the role's gRPC probes name. */
  const grpcProbeServices = (role: string) =>
    (['readinessProbe', 'livenessProbe', 'startupProbe'] as const)
      .map((kind) => probe(role, kind).grpc?.service as string | undefined)
      .filter((service): service is string => service !== undefined);
  const healthOf = (role: 'inference' | 'core') =>
    createClient(
      Health,
      createConnectTransport({ baseUrl: `http://127.0.0.1:${ports[role]}`, httpVersion: '2' }),
    );

  it('migrates with the Job’s environment', () => {
    const job = find(manifests, 'Job', 'rel-skinmatch-migration');
    const container = job.spec.template.spec.containers[0];
    const run = spawnSync(process.execPath, ['scripts/role.ts', ...container.args], {
      env: environment(job),
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /"msg":"migrations applied"/);
  });

  it('starts inference, core and the façade, which answer their probes', async () => {
    for (const role of ['inference', 'core', 'facade'] as const) {
      const child = start(role);
      assert.ok(await waitForPort(ports[role], 60_000, () => child.exitCode !== null), `${role} listens`);
      // Core listens, then migrates and loads the catalog: its readinessProbe passes once both have ended.
      if (role === 'core')
        assert.ok(await waitForReady(ports.core, 60_000, () => child.exitCode !== null), 'core is ready');
    }
    for (const role of ['inference', 'core'] as const) {
      // The overall status, and each gRPC probe the pod declares (its `service`: readiness, liveness).
      for (const service of ['', ...grpcProbeServices(role)]) {
        const { status } = await healthOf(role).check({ service });
        assert.equal(status, HealthCheckResponse_ServingStatus.SERVING, `${role} ${service}`);
      }
    }
    // The readiness probe by the pod's address (a Host the façade does not otherwise accept), and /health.
    const readiness = probe('facade', 'readinessProbe').httpGet.path;
    for (const path of [readiness, '/health']) {
      const response = await fetch(`http://127.0.0.1:${ports.facade}${path}`);
      assert.equal(response.status, 200, path);
    }
    // Each serves its metrics on the port its pod declares (the scrape annotations name it).
    for (const role of ['inference', 'core', 'facade'] as const) {
      assert.ok(await waitForPort(metricsPorts[role], 10_000), `${role}'s metrics port`);
      const metrics = await fetch(`http://127.0.0.1:${metricsPorts[role]}/metrics`);
      assert.equal(metrics.status, 200, role);
      assert.match(await metrics.text(), /^process_cpu_seconds_total /m, role);
    }
  });

  it('writes nothing to its home directory, read-only in the pod: onnxruntime’s telemetry is off', () => {
    // onnxruntime-node 1.30 keeps a device id and an event store under ~/.cache/Microsoft/DeveloperTools
    // and sends the events to mobile.events.data.microsoft.com unless ORT_DISABLE_TELEMETRY is set; on the
    // read-only home it warned "Failed to persist telemetry device ID" and sent them all the same.
    assert.deepEqual(readdirSync(home, { recursive: true }), []);
  });

  it('on SIGTERM each process is not ready at once, then exits 0 within the chart’s bound, before the grace period ends', async () => {
    const config = find(manifests, 'ConfigMap', 'rel-skinmatch').data!;
    const boundMs = Number(config.SHUTDOWN_TIMEOUT_MS);
    const drainMs = Number(config.SHUTDOWN_DRAIN_DELAY_MS);
    assert.deepEqual([drainMs, boundMs], [5000, 25_000]);
    const signalled = Date.now();
    const exits = ['facade', 'core', 'inference'].map((role) => {
      const child = started.get(role)!;
      const grace = find(manifests, 'Deployment', `rel-skinmatch-${role}`).spec.template.spec
        .terminationGracePeriodSeconds;
      assert.ok(grace * 1000 > boundMs, `${role}: the grace period outlasts the shutdown`);
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      return exited;
    });
    // During the drain delay: still listening, not ready (as soon as each has handled the signal).
    const soon = async (what: string, check: () => Promise<boolean>) => {
      for (const deadline = Date.now() + drainMs; !(await check()); ) {
        assert.ok(Date.now() < deadline, `${what} within the drain delay`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    for (const path of [probe('facade', 'readinessProbe').httpGet.path, '/health']) {
      await soon(`the façade's ${path} not ready`, async () => {
        const res = await fetch(`http://127.0.0.1:${ports.facade}${path}`);
        return (
          res.status === 503 && ((await res.json()) as { shutting_down?: boolean }).shutting_down === true
        );
      });
    }
    for (const role of ['inference', 'core'] as const) {
      const service = probe(role, 'readinessProbe').grpc.service ?? '';
      await soon(`${role} NOT_SERVING`, async () => {
        const { status } = await healthOf(role).check({ service });
        return status === HealthCheckResponse_ServingStatus.NOT_SERVING;
      });
    }
    assert.deepEqual(await Promise.all(exits), [0, 0, 0]);
    const took = Date.now() - signalled;
    assert.ok(took >= drainMs && took < boundMs, `stopped in ${took} ms`);
  });
});
