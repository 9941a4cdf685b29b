/**
 * The chart rendered by the real Helm binary (helm template, helm lint), each object validated against the
 * Kubernetes API schemas of kubernetes-models (KEDA's for the ScaledObject), then checked for what the
 * chart promises: secure pods, probes on the processes' real health endpoints, each process given only its
 * own secrets, the migration hook, autoscaling and disruption budgets (the network side is in
 * render-network.test.ts, refused values in render-refusals.test.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { find, helm, type Manifest, render } from '../support/helm.ts';
import { envOf, OWN_SECRETS, PRODUCTION, podSpec, SIGNING_KEY, WORKLOADS } from './render-support.ts';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'keda.sh/v1alpha1/TriggerAuthentication': TriggerAuthentication,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
};

describe('helm chart render', function () {
  this.timeout(60_000);

  it('passes helm lint --strict with the production example and with its own Secret', () => {
    for (const values of [PRODUCTION, OWN_SECRETS]) {
      const lint = helm('lint', [values], ['--strict']);
      assert.ok(lint.ok, lint.stderr);
    }
  });

  it('renders objects that the Kubernetes (and KEDA) API schemas accept', () => {
    for (const values of [
      PRODUCTION,
      OWN_SECRETS,
      { ...OWN_SECRETS, metrics: { podMonitor: { enabled: true } } },
    ]) {
      const manifests = render(values);
      for (const m of manifests) {
        const Model = MODELS[`${m.apiVersion}/${m.kind}`];
        assert.ok(Model, `no schema for ${m.apiVersion}/${m.kind}`);
        new Model(m as never).validate();
      }
    }
  });

  it('renders every object the chart promises, by name', () => {
    const names = (ms: Manifest[]) => ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    assert.deepEqual(names(render(OWN_SECRETS)), [
      'ConfigMap/rel-skinmatch',
      'Deployment/rel-skinmatch-core',
      'Deployment/rel-skinmatch-facade',
      'Deployment/rel-skinmatch-inference',
      'HorizontalPodAutoscaler/rel-skinmatch-core',
      'HorizontalPodAutoscaler/rel-skinmatch-facade',
      'HorizontalPodAutoscaler/rel-skinmatch-inference',
      'Job/rel-skinmatch-migration',
      'NetworkPolicy/rel-skinmatch-core',
      'NetworkPolicy/rel-skinmatch-core-egress',
      'NetworkPolicy/rel-skinmatch-facade',
      'NetworkPolicy/rel-skinmatch-facade-egress',
      'NetworkPolicy/rel-skinmatch-inference',
      'NetworkPolicy/rel-skinmatch-inference-egress',
      'NetworkPolicy/rel-skinmatch-migration-egress',
      'PodDisruptionBudget/rel-skinmatch-core',
      'PodDisruptionBudget/rel-skinmatch-facade',
      'PodDisruptionBudget/rel-skinmatch-inference',
      'Secret/rel-skinmatch',
      'Secret/rel-skinmatch-migration',
      'Service/rel-skinmatch-core',
      'Service/rel-skinmatch-facade',
      'Service/rel-skinmatch-inference',
      'ServiceAccount/rel-skinmatch',
    ]);
    // The production example: existing Secrets (none created), KEDA instead of inference's HPA, an Ingress.
    assert.deepEqual(
      names(render(PRODUCTION)).filter((n) =>
        /^(Secret|HorizontalPodAutoscaler|ScaledObject|TriggerAuthentication|Ingress)\//.test(n),
      ),
      [
        'HorizontalPodAutoscaler/rel-skinmatch-core',
        'HorizontalPodAutoscaler/rel-skinmatch-facade',
        'Ingress/rel-skinmatch',
        'ScaledObject/rel-skinmatch-inference',
        'TriggerAuthentication/rel-skinmatch-queue',
      ],
    );
  });

  it('runs every pod non-root, read-only, without capabilities, under seccomp RuntimeDefault', () => {
    const manifests = render(PRODUCTION);
    const pods = [
      ...WORKLOADS.map((w) => find(manifests, 'Deployment', `rel-skinmatch-${w}`)),
      find(manifests, 'Job', 'rel-skinmatch-migration'),
    ];
    for (const pod of pods.map(podSpec)) {
      assert.equal(pod.securityContext.runAsNonRoot, true);
      assert.equal(pod.securityContext.runAsUser, 1000);
      assert.deepEqual(pod.securityContext.seccompProfile, { type: 'RuntimeDefault' });
      assert.equal(pod.automountServiceAccountToken, false);
      assert.deepEqual(pod.volumes, [{ name: 'tmp', emptyDir: { sizeLimit: '256Mi' } }]);
      for (const c of pod.containers) {
        assert.deepEqual(c.securityContext, {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          privileged: false,
          capabilities: { drop: ['ALL'] },
        });
        assert.deepEqual(c.volumeMounts, [{ name: 'tmp', mountPath: '/tmp' }]);
        assert.equal(c.image, 'registry.example.com/skinmatch:0.1.0');
        assert.ok(c.resources.requests.cpu && c.resources.limits.memory, 'requests and a memory limit');
      }
    }
  });

  it('pulls the image with the pull Secrets given by name or as in a pod spec', () => {
    // `{name: …}` is the pod spec's form, and most charts'; the schema refused it before.
    const manifests = render(PRODUCTION, { imagePullSecrets: ['regcred', { name: 'mirror' }] });
    const pods = [
      ...WORKLOADS.map((w) => find(manifests, 'Deployment', `rel-skinmatch-${w}`)),
      find(manifests, 'Job', 'rel-skinmatch-migration'),
    ];
    for (const pod of pods.map(podSpec))
      assert.deepEqual(pod.imagePullSecrets, [{ name: 'regcred' }, { name: 'mirror' }]);
    const refused = helm('template', [PRODUCTION, { imagePullSecrets: [{ secret: 'regcred' }] }]);
    assert.match(refused.stderr, /at '\/imagePullSecrets\/0': 'oneOf' failed/);
  });

  it('starts each workload as its role, with probes on its own health endpoint', () => {
    const manifests = render(OWN_SECRETS);
    const container = (w: string) =>
      podSpec(find(manifests, 'Deployment', `rel-skinmatch-${w}`)).containers[0];
    const facade = container('facade');
    assert.deepEqual(facade.args, ['facade']);
    assert.deepEqual(facade.ports, [
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'metrics', containerPort: 9464, protocol: 'TCP' },
    ]);
    // Ready while this pod answers (/ready), not while core and its database do (/health): their outage
    // took every façade out of the Service.
    assert.deepEqual(facade.readinessProbe.httpGet, { path: '/ready', port: 'http' });
    assert.deepEqual(facade.livenessProbe.tcpSocket, { port: 'http' });
    for (const [w, port, metrics] of [
      ['core', 8081, 9465],
      ['inference', 8082, 9466],
    ] as const) {
      const c = container(w);
      assert.deepEqual(c.args, [w]);
      assert.deepEqual(c.ports, [
        { name: 'grpc', containerPort: port, protocol: 'TCP' },
        { name: 'metrics', containerPort: metrics, protocol: 'TCP' },
      ]);
      assert.deepEqual(
        c.readinessProbe.grpc,
        { port, service: 'readiness' },
        `${w}: grpc.health.v1's readiness check on its serving port`,
      );
      assert.deepEqual(c.startupProbe.grpc, { port });
    }
    // Core and inference: a call answered (grpc.health.v1's `liveness`), not only an open port, with time
    // enough for seconds of catalog or model work.
    const grpcPorts = { core: 8081, inference: 8082 } as const;
    for (const [w, port] of Object.entries(grpcPorts)) {
      const { livenessProbe: probe } = container(w);
      assert.equal(probe.tcpSocket, undefined, w);
      assert.deepEqual(probe.grpc, { port, service: 'liveness' }, w);
      assert.deepEqual([probe.periodSeconds, probe.timeoutSeconds, probe.failureThreshold], [10, 5, 3], w);
    }
    assert.deepEqual(podSpec(find(manifests, 'Job', 'rel-skinmatch-migration')).containers[0].args, [
      'migrate',
    ]);
  });

  it('gives each process only its own secrets', () => {
    const manifests = render(OWN_SECRETS);
    const env = (w: string) =>
      envOf(podSpec(find(manifests, 'Deployment', `rel-skinmatch-${w}`)).containers[0]);
    assert.deepEqual(env('core'), {
      DATABASE_URL: 'secret:rel-skinmatch/DATABASE_URL',
      TOKEN_PEPPER: 'secret:rel-skinmatch/TOKEN_PEPPER',
      ALTCHA_HMAC_KEY: 'secret:rel-skinmatch/ALTCHA_HMAC_KEY',
    });
    assert.deepEqual(env('facade'), {
      DATABASE_URL: 'secret:rel-skinmatch/DATABASE_URL',
      OAUTH_SIGNING_KEY: 'secret:rel-skinmatch/OAUTH_SIGNING_KEY',
      OAUTH_COOKIE_KEYS: 'secret:rel-skinmatch/OAUTH_COOKIE_KEYS',
      IDP_1_CLIENT_SECRET: 'secret:rel-skinmatch/IDP_1_CLIENT_SECRET',
      IDP_2_CLIENT_SECRET: 'secret:rel-skinmatch/IDP_2_CLIENT_SECRET',
    });
    assert.deepEqual(env('inference'), {});
    assert.deepEqual(envOf(podSpec(find(manifests, 'Job', 'rel-skinmatch-migration')).containers[0]), {
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '25000',
      DATABASE_URL: 'secret:rel-skinmatch-migration/DATABASE_URL',
    });
    // Every key referenced exists in the Secret the chart renders.
    const secret = find(manifests, 'Secret', 'rel-skinmatch').stringData!;
    assert.deepEqual(Object.keys(secret).sort(), [
      'ALTCHA_HMAC_KEY',
      'DATABASE_URL',
      'IDP_1_CLIENT_SECRET',
      'IDP_2_CLIENT_SECRET',
      'OAUTH_COOKIE_KEYS',
      'OAUTH_SIGNING_KEY',
      'TOKEN_PEPPER',
    ]);
    assert.equal(secret.TOKEN_PEPPER, OWN_SECRETS.secrets.tokenPepper);
    assert.equal(secret.OAUTH_SIGNING_KEY, SIGNING_KEY);
  });

  it('reads existing Secrets by the names and keys the values give', () => {
    const manifests = render(PRODUCTION);
    const core = envOf(podSpec(find(manifests, 'Deployment', 'rel-skinmatch-core')).containers[0]);
    assert.deepEqual(core, {
      DATABASE_URL: 'secret:skinmatch-db/uri',
      TOKEN_PEPPER: 'secret:skinmatch-secrets/TOKEN_PEPPER',
      ALTCHA_HMAC_KEY: 'secret:skinmatch-secrets/ALTCHA_HMAC_KEY',
    });
    const job = envOf(podSpec(find(manifests, 'Job', 'rel-skinmatch-migration')).containers[0]);
    assert.equal(job.DATABASE_URL, 'secret:skinmatch-db/uri');
    assert.deepEqual(find(manifests, 'TriggerAuthentication', 'rel-skinmatch-queue').spec.secretTargetRef, [
      { parameter: 'connection', name: 'skinmatch-db', key: 'uri' },
    ]);
  });

  it('configures the processes through one ConfigMap of the variables they read', () => {
    const manifests = render(OWN_SECRETS);
    const data = find(manifests, 'ConfigMap', 'rel-skinmatch').data!;
    assert.equal(data.NODE_ENV, 'production');
    assert.equal(data.PUBLIC_BASE_URL, 'https://skin.example.com');
    assert.equal(data.CORE_URL, 'http://rel-skinmatch-core:8081');
    assert.equal(data.INFERENCE_URL, 'http://rel-skinmatch-inference:8082');
    assert.equal(data.CORE_HOST, '0.0.0.0');
    assert.equal(data.IDP_1_ISSUER, 'https://idp-one.example.com');
    assert.equal(data.IDP_2_CLIENT_ID, 'two');
    assert.equal(data.IDP_2_NAME, undefined);
    assert.equal(data.RATE_LIMIT_UPLOADS_PER_HOUR, '20');
    assert.equal(data.ADMISSIONS_PAUSE_QUEUED, '500');
    // How long a stored photo outlasts an inference outage, and when busy inference counts as stuck.
    assert.equal(data.ANALYSIS_RETRY_WINDOW_S, '1800');
    assert.equal(data.INFERENCE_STALL_MS, '120000');
    assert.equal(data.RATE_LIMIT_TOOLS, undefined);
    // Large numbers as digits: Helm reads YAML numbers as floats, which quote printed as 1.048576e+07.
    assert.equal(data.PHOTO_MAX_BYTES, '10485760');
    const large = find(
      render(OWN_SECRETS, { config: { coreTimeoutMs: 12_000_000, photos: { maxPixels: 100_000_000 } } }),
      'ConfigMap',
      'rel-skinmatch',
    ).data!;
    assert.deepEqual([large.CORE_TIMEOUT_MS, large.PHOTO_MAX_PIXELS], ['12000000', '100000000']);
    for (const [name, value] of Object.entries(large)) assert.doesNotMatch(value, /\de[+-]\d/, name);
    const budgets = render(OWN_SECRETS, {
      config: { rateLimits: { tools: ['recommend_products=20/minute', 'get_skin_scan=5/second'] } },
    });
    assert.equal(
      find(budgets, 'ConfigMap', 'rel-skinmatch').data!.RATE_LIMIT_TOOLS,
      'recommend_products=20/minute,get_skin_scan=5/second',
    );
    // Every variable the chart sets is one the code reads (a misspelt name would be silently ignored).
    const read = new Set<string>();
    const sources = readdirSync('services/shared').map((f) => join('services/shared', f));
    for (const file of [...sources, 'services/core/migrate.ts']) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/env\.([A-Z_0-9]+)/g)) read.add(m[1]!);
      // Read through the EnvReader (`env.positive('NAME', …)`) or as a secret's name.
      for (const m of text.matchAll(
        /(?:\.(?:value|port|positive|count|oneOf|url|host)|hexSecret)\(\s*'([A-Z_0-9]+)'/g,
      ))
        read.add(m[1]!);
      for (const m of text.matchAll(/name: '([A-Z_0-9]+)'/g)) read.add(m[1]!);
      // The identity providers' variables are read as IDP_<n>_<NAME>.
      for (const m of text.matchAll(/read\('([A-Z_]+)'\)/g))
        for (const id of ['1', '2']) read.add(`IDP_${id}_${m[1]}`);
    }
    const set = [
      ...Object.keys(data),
      ...WORKLOADS.flatMap((w) =>
        Object.keys(envOf(podSpec(find(manifests, 'Deployment', `rel-skinmatch-${w}`)).containers[0])),
      ),
    ];
    assert.deepEqual(
      [...new Set(set)].filter((name) => !read.has(name)),
      [],
    );
  });

  it('migrates in a pre-install/pre-upgrade hook whose database Secret exists before the Job', () => {
    const manifests = render(OWN_SECRETS);
    const job = find(manifests, 'Job', 'rel-skinmatch-migration').metadata.annotations!;
    const secret = find(manifests, 'Secret', 'rel-skinmatch-migration').metadata.annotations!;
    assert.equal(job['helm.sh/hook'], 'pre-install,pre-upgrade');
    assert.equal(secret['helm.sh/hook'], 'pre-install,pre-upgrade');
    assert.ok(Number(secret['helm.sh/hook-weight']) < Number(job['helm.sh/hook-weight']));
    assert.equal(secret['helm.sh/hook-delete-policy'], 'before-hook-creation,hook-succeeded');
    assert.equal(podSpec(find(manifests, 'Job', 'rel-skinmatch-migration')).restartPolicy, 'Never');
    // SIGTERMed, the migrate role ends the migration under way within SHUTDOWN_TIMEOUT_MS (25 s), before
    // Kubernetes would kill it.
    assert.equal(
      podSpec(find(manifests, 'Job', 'rel-skinmatch-migration')).terminationGracePeriodSeconds,
      30,
    );
    // No hook Secret when the URL lives in an existing Secret.
    assert.equal(render(PRODUCTION).filter((m) => m.kind === 'Secret').length, 0);
  });

  it('runs the migration Job on core’s nodes: its nodeSelector, tolerations and node affinity', () => {
    // Before, the Job had none: on a cluster of tainted or mixed-architecture nodes its pod stayed Pending
    // or landed where the image cannot run, and `helm install` timed out before any Deployment existed.
    const arch = { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] };
    const nodeAffinity = {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [arch] }] },
    };
    const spread = { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } };
    const core = {
      nodeSelector: { pool: 'skinmatch' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'skinmatch', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity,
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [spread] },
      },
    };
    const job = podSpec(find(render(PRODUCTION, { core }), 'Job', 'rel-skinmatch-migration'));
    assert.deepEqual(job.nodeSelector, core.nodeSelector);
    assert.deepEqual(job.tolerations, core.tolerations);
    assert.deepEqual(job.affinity, { nodeAffinity });
    const plain = podSpec(find(render(PRODUCTION), 'Job', 'rel-skinmatch-migration'));
    assert.deepEqual(
      [plain.nodeSelector, plain.tolerations, plain.affinity],
      [undefined, undefined, undefined],
    );
  });

  it('runs the migration Job as core’s ServiceAccount when it exists before the hook, without its token', () => {
    // Before, the Job always ran as the namespace's default, even with `serviceAccount.name` naming an
    // existing account the pods run as (one a PodSecurity or image-pull policy may require).
    const job = (values: object) =>
      podSpec(find(render(PRODUCTION, values), 'Job', 'rel-skinmatch-migration'));
    const core = (values: object) =>
      podSpec(find(render(PRODUCTION, values), 'Deployment', 'rel-skinmatch-core'));
    for (const serviceAccount of [{ create: false, name: 'skin-runner' }, { create: false }]) {
      const expected = serviceAccount.name ?? 'default';
      assert.equal(core({ serviceAccount }).serviceAccountName, expected);
      assert.equal(job({ serviceAccount }).serviceAccountName, expected);
      assert.equal(job({ serviceAccount }).automountServiceAccountToken, false);
    }
    // Created by the release, the account does not exist yet when a first install's hook runs.
    assert.equal(
      job({ serviceAccount: { create: true, name: 'skin-runner' } }).serviceAccountName,
      undefined,
    );
  });

  it('scales with one HPA per Deployment, or KEDA on the analysis queue for inference', () => {
    const own = render(OWN_SECRETS);
    for (const w of WORKLOADS) {
      const hpa = find(own, 'HorizontalPodAutoscaler', `rel-skinmatch-${w}`).spec;
      assert.deepEqual(hpa.scaleTargetRef, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: `rel-skinmatch-${w}`,
      });
      assert.equal(
        find(own, 'Deployment', `rel-skinmatch-${w}`).spec.replicas,
        undefined,
        'the HPA owns replicas',
      );
    }
    const prod = render(PRODUCTION);
    const scaled = find(prod, 'ScaledObject', 'rel-skinmatch-inference').spec;
    assert.deepEqual(scaled.scaleTargetRef, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'rel-skinmatch-inference',
    });
    assert.equal(scaled.minReplicaCount, 2);
    assert.equal(scaled.maxReplicaCount, 12);
    assert.equal(scaled.triggers[0].type, 'postgresql');
    assert.equal(scaled.triggers[0].metadata.targetQueryValue, '2');
    const fixed = render(OWN_SECRETS, { inference: { autoscaling: { enabled: false }, replicaCount: 3 } });
    assert.equal(find(fixed, 'Deployment', 'rel-skinmatch-inference').spec.replicas, 3);
  });
});
