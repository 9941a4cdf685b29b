/**
 * The chart's network face, rendered by the real Helm binary: Services by named ports, NetworkPolicies (only the
 * façade public), the metrics ports open to the configured scrapers only, and the façade's Ingress.
 */
import assert from 'node:assert/strict';
import { find, render } from '../support/helm.ts';
import { OWN_SECRETS, PRODUCTION, WORKLOADS } from './render-support.ts';

describe('helm chart render: Services, network policies, metrics and Ingress', function () {
  this.timeout(60_000);

  it('routes Services to their pods by named ports', () => {
    const manifests = render(OWN_SECRETS);
    for (const w of WORKLOADS) {
      const service = find(manifests, 'Service', `rel-skinmatch-${w}`);
      const pod = find(manifests, 'Deployment', `rel-skinmatch-${w}`).spec.template;
      for (const [k, v] of Object.entries(service.spec.selector)) assert.equal(pod.metadata.labels[k], v);
      const portNames = pod.spec.containers[0].ports.map((p: { name: string }) => p.name);
      assert.ok(portNames.includes(service.spec.ports[0].targetPort));
    }
    assert.equal(
      find(manifests, 'Service', 'rel-skinmatch-core').spec.ports[0].appProtocol,
      'kubernetes.io/h2c',
    );
  });

  it('lets only the façade be public, core be reached from the façade and labelled namespaces, inference from core', () => {
    const manifests = render(OWN_SECRETS);
    const policy = (w: string) => find(manifests, 'NetworkPolicy', `rel-skinmatch-${w}`).spec;
    const component = (w: string) => ({
      'app.kubernetes.io/name': 'skinmatch',
      'app.kubernetes.io/instance': 'rel',
      'app.kubernetes.io/component': w,
    });
    // Every metrics port: from the monitoring namespace only (metrics.scrapeFrom's default).
    const scraping = {
      ports: [{ port: 'metrics', protocol: 'TCP' }],
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
    };
    assert.deepEqual(policy('facade').ingress, [{ ports: [{ port: 'http', protocol: 'TCP' }] }, scraping]);
    assert.deepEqual(policy('core').ingress, [
      {
        ports: [{ port: 'grpc', protocol: 'TCP' }],
        from: [
          { podSelector: { matchLabels: component('facade') } },
          { namespaceSelector: { matchLabels: { 'skinmatch.io/core-client': 'true' } } },
        ],
      },
      scraping,
    ]);
    assert.deepEqual(policy('inference').ingress, [
      {
        ports: [{ port: 'grpc', protocol: 'TCP' }],
        from: [{ podSelector: { matchLabels: component('core') } }],
      },
      scraping,
    ]);
    for (const w of WORKLOADS) assert.deepEqual(policy(w).podSelector.matchLabels, component(w));
    // The production example lets only the ingress controller's namespace reach the façade.
    assert.deepEqual(find(render(PRODUCTION), 'NetworkPolicy', 'rel-skinmatch-facade').spec.ingress[0].from, [
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
    ]);
  });

  it('exposes each process’s metrics port to the configured scrapers only: port, annotations, PodMonitor', () => {
    const manifests = render(OWN_SECRETS);
    const data = find(manifests, 'ConfigMap', 'rel-skinmatch').data!;
    const ports = { facade: 9464, core: 9465, inference: 9466 };
    assert.equal(data.METRICS_HOST, '0.0.0.0');
    for (const w of WORKLOADS) {
      const pod = find(manifests, 'Deployment', `rel-skinmatch-${w}`).spec.template;
      const port = pod.spec.containers[0].ports.find((p: { name: string }) => p.name === 'metrics');
      assert.deepEqual(port, { name: 'metrics', containerPort: ports[w], protocol: 'TCP' }, w);
      assert.equal(data[`${w.toUpperCase()}_METRICS_PORT`], String(ports[w]));
      assert.equal(pod.metadata.annotations['prometheus.io/scrape'], 'true');
      assert.equal(pod.metadata.annotations['prometheus.io/port'], String(ports[w]));
      assert.equal(pod.metadata.annotations['prometheus.io/path'], '/metrics');
      // Never on a Service: the façade's is public.
      const service = find(manifests, 'Service', `rel-skinmatch-${w}`);
      assert.ok(service.spec.ports.every((p: { targetPort: string }) => p.targetPort !== 'metrics'));
    }
    assert.ok(!manifests.some((m) => m.kind === 'PodMonitor'), 'no PodMonitor unless asked for');

    const monitored = render(OWN_SECRETS, {
      metrics: {
        podAnnotations: false,
        podMonitor: { enabled: true, interval: '15s', labels: { release: 'prom' } },
        // null removes the default namespace labels (Helm merges maps key by key).
        scrapeFrom: { namespaceLabels: null, podLabels: { 'app.kubernetes.io/name': 'prometheus' } },
      },
    });
    const monitor = find(monitored, 'PodMonitor', 'rel-skinmatch');
    assert.equal(monitor.metadata.labels!.release, 'prom');
    assert.deepEqual(monitor.spec.podMetricsEndpoints, [
      { port: 'metrics', path: '/metrics', interval: '15s' },
    ]);
    assert.deepEqual(monitor.spec.selector.matchExpressions, [
      { key: 'app.kubernetes.io/component', operator: 'In', values: ['facade', 'core', 'inference'] },
    ]);
    const pod = find(monitored, 'Deployment', 'rel-skinmatch-core').spec.template;
    assert.equal(pod.metadata.annotations['prometheus.io/scrape'], undefined);
    // Scrapers named by pod labels alone: those pods of the release's own namespace.
    assert.deepEqual(find(monitored, 'NetworkPolicy', 'rel-skinmatch-core').spec.ingress.at(-1).from, [
      { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } },
    ]);
    // Both given: those pods in those namespaces (one peer, both selectors).
    const both = render(OWN_SECRETS, {
      metrics: { scrapeFrom: { podLabels: { 'app.kubernetes.io/name': 'prometheus' } } },
    });
    assert.deepEqual(find(both, 'NetworkPolicy', 'rel-skinmatch-inference').spec.ingress.at(-1).from, [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
      },
    ]);

    // Off: no port, no annotation, no rule, and each process told port 0 (no endpoint).
    const off = render(OWN_SECRETS, { metrics: { enabled: false, podMonitor: { enabled: true } } });
    const offData = find(off, 'ConfigMap', 'rel-skinmatch').data!;
    for (const w of WORKLOADS) {
      const pod = find(off, 'Deployment', `rel-skinmatch-${w}`).spec.template;
      assert.ok(pod.spec.containers[0].ports.every((p: { name: string }) => p.name !== 'metrics'));
      assert.equal(pod.metadata.annotations['prometheus.io/scrape'], undefined);
      assert.equal(offData[`${w.toUpperCase()}_METRICS_PORT`], '0');
      const rules = find(off, 'NetworkPolicy', `rel-skinmatch-${w}`).spec.ingress;
      assert.ok(rules.every((r: { ports: { port: string }[] }) => r.ports[0]!.port !== 'metrics'));
    }
    assert.ok(!off.some((m) => m.kind === 'PodMonitor'));
  });

  it('exposes the façade through an Ingress with TLS on the public host', () => {
    const ingress = find(render(PRODUCTION), 'Ingress', 'rel-skinmatch').spec;
    assert.deepEqual(ingress.tls, [{ hosts: ['skin.example.com'], secretName: 'skinmatch-tls' }]);
    assert.equal(ingress.rules[0].host, 'skin.example.com');
    assert.deepEqual(ingress.rules[0].http.paths[0].backend, {
      service: { name: 'rel-skinmatch-facade', port: { name: 'http' } },
    });
    assert.equal(ingress.ingressClassName, 'nginx');
    // Another host (an origin behind a CDN that rewrites Host) renders once the façade accepts it.
    const origin = {
      ingress: { host: 'origin.example.org' },
      config: { allowedHosts: ['origin.example.org'] },
    };
    const behind = render(PRODUCTION, origin);
    assert.equal(find(behind, 'Ingress', 'rel-skinmatch').spec.rules[0].host, 'origin.example.org');
    assert.equal(find(behind, 'ConfigMap', 'rel-skinmatch').data!.ALLOWED_HOSTS, 'origin.example.org');
  });
});
