/**
 * The chart's egress NetworkPolicies, rendered by the real Helm binary: each process may open connections
 * only to what it needs — DNS; the façade core, PostgreSQL and the upstream identity providers' HTTPS; core
 * PostgreSQL and inference; inference nothing more; the migration Job PostgreSQL — where values say they are, and to
 * whatever more values add (an OpenTelemetry collector).
 */
import assert from 'node:assert/strict';
import { find, helm, render } from '../support/helm.ts';
import { envOf, OWN_SECRETS, PRODUCTION, podSpec } from './render-support.ts';

const PROCESSES = ['facade', 'core', 'inference', 'migration'] as const;

const component = (c: string) => ({
  'app.kubernetes.io/name': 'skinmatch',
  'app.kubernetes.io/instance': 'rel',
  'app.kubernetes.io/component': c,
});
const tcp = (port: number) => [{ port, protocol: 'TCP' }];
const DNS = { ports: [{ port: 53, protocol: 'UDP' }, ...tcp(53)] };
const TO_CORE = { ports: tcp(8081), to: [{ podSelector: { matchLabels: component('core') } }] };
const TO_INFERENCE = { ports: tcp(8082), to: [{ podSelector: { matchLabels: component('inference') } }] };

describe('helm chart render: egress network policies', function () {
  this.timeout(60_000);

  const egress = (manifests: ReturnType<typeof render>, c: string) =>
    find(manifests, 'NetworkPolicy', `rel-skinmatch-${c}-egress`).spec;

  it('by default: each process to what it needs, PostgreSQL and the providers on their ports', () => {
    for (const values of [OWN_SECRETS, PRODUCTION]) {
      const manifests = render(values);
      for (const c of PROCESSES) {
        assert.deepEqual(egress(manifests, c).podSelector.matchLabels, component(c), c);
        assert.deepEqual(egress(manifests, c).policyTypes, ['Egress'], c);
      }
      assert.deepEqual(egress(manifests, 'facade').egress, [
        DNS,
        TO_CORE,
        { ports: tcp(5432) },
        { ports: tcp(443) },
      ]);
      assert.deepEqual(egress(manifests, 'core').egress, [DNS, { ports: tcp(5432) }, TO_INFERENCE]);
      assert.deepEqual(egress(manifests, 'inference').egress, [DNS]);
      assert.deepEqual(egress(manifests, 'migration').egress, [DNS, { ports: tcp(5432) }]);
    }
    // The migration Job's pods are the ones its policy selects.
    const job = find(render(OWN_SECRETS), 'Job', 'rel-skinmatch-migration').spec.template.metadata.labels;
    for (const [k, v] of Object.entries(component('migration'))) assert.equal(job[k], v, k);
  });

  it('where values say: the resolver, the database, the providers, and more rules for every process', () => {
    const kubeDns = [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
      },
    ];
    const database = [{ ipBlock: { cidr: '10.20.0.0/24' } }];
    const providers = [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }];
    const collector = {
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'otel' } } }],
      ports: tcp(4318),
    };
    const manifests = render(OWN_SECRETS, {
      networkPolicy: {
        egress: {
          dnsTo: kubeDns,
          database: { port: 6432, to: database },
          identityProviders: { to: providers },
          extra: [collector],
        },
      },
    });
    const dns = { ...DNS, to: kubeDns };
    const postgres = { ports: tcp(6432), to: database };
    assert.deepEqual(egress(manifests, 'facade').egress, [
      dns,
      TO_CORE,
      postgres,
      { ports: tcp(443), to: providers },
      collector,
    ]);
    assert.deepEqual(egress(manifests, 'core').egress, [dns, postgres, TO_INFERENCE, collector]);
    assert.deepEqual(egress(manifests, 'inference').egress, [dns, collector]);
    assert.deepEqual(egress(manifests, 'migration').egress, [dns, postgres, collector]);
  });

  it('every process given DATABASE_URL may reach PostgreSQL on its port', () => {
    for (const values of [OWN_SECRETS, PRODUCTION]) {
      const manifests = render(values, { networkPolicy: { egress: { database: { port: 6432 } } } });
      const workloads = manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'Job');
      const withDatabase = workloads
        .filter((m) => podSpec(m).containers.some((c: any) => 'DATABASE_URL' in envOf(c)))
        .map((m) => m.spec.template.metadata.labels['app.kubernetes.io/component']);
      assert.deepEqual(withDatabase.sort(), ['core', 'facade', 'migration']);
      for (const c of withDatabase) {
        const ports = egress(manifests, c).egress.flatMap((rule: any) => rule.ports ?? []);
        assert.ok(
          ports.some((p: any) => p.port === 6432 && p.protocol === 'TCP'),
          `${c}: ${JSON.stringify(ports)}`,
        );
      }
    }
  });

  it('none when turned off, or with the network policies', () => {
    for (const networkPolicy of [{ egress: { enabled: false } }, { enabled: false }]) {
      const names = render(OWN_SECRETS, { networkPolicy })
        .filter((m) => m.kind === 'NetworkPolicy')
        .map((m) => m.metadata.name);
      assert.ok(!names.some((n) => n.endsWith('-egress')), JSON.stringify(names));
    }
  });

  it('refuses a port out of range and a peer that is no NetworkPolicy peer (schema)', () => {
    for (const [egress, message] of [
      [{ database: { port: 0 } }, "at '/networkPolicy/egress/database/port'"],
      [{ database: { to: [{ cidr: '10.0.0.0/8' }] } }, "at '/networkPolicy/egress/database/to/0'"],
    ] as const) {
      const result = helm('template', [OWN_SECRETS, { networkPolicy: { egress } }]);
      assert.equal(result.ok, false);
      assert.ok(result.stderr.includes(message), result.stderr);
    }
  });
});
