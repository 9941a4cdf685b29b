/** Values the chart refuses to render, each with the message `helm template` gives for it. */
import assert from 'node:assert/strict';
import { helm } from '../support/helm.ts';
import { OWN_SECRETS } from './render-support.ts';

describe('helm chart render: refused values', function () {
  this.timeout(60_000);

  const refusals: [string, object, string][] = [
    ['no public address', { publicBaseUrl: '' }, 'publicBaseUrl is required'],
    [
      'a public address on localhost',
      { publicBaseUrl: 'https://localhost:8443' },
      "publicBaseUrl must be the façade's public address, not localhost",
    ],
    [
      // Kubernetes refused the Ingress it made: "a lowercase RFC 1123 subdomain must consist of…".
      'a public address with capitals',
      { publicBaseUrl: 'https://Skin.Example.com' },
      'publicBaseUrl must be lower case: https://skin.example.com',
    ],
    [
      'a shutdown longer than the grace period',
      { config: { shutdown: { timeoutSeconds: 30 } } },
      'config.shutdown.timeoutSeconds must be below pod.terminationGracePeriodSeconds',
    ],
    [
      'a drain delay as long as the shutdown',
      { config: { shutdown: { drainDelaySeconds: 25 } } },
      'config.shutdown.drainDelaySeconds must be below config.shutdown.timeoutSeconds',
    ],
    ['no database', { database: { url: '' } }, 'database.url or database.existingSecret is required'],
    [
      'no pepper',
      { secrets: { tokenPepper: '' } },
      'secrets.tokenPepper or secrets.existingSecret is required',
    ],
    [
      'one identity provider',
      { oauth: { identityProviders: [{ issuer: 'https://a.example', clientId: 'a' }] } },
      'oauth.identityProviders must list exactly two providers',
    ],
    [
      'a missing client secret',
      { secrets: { identityProviderClientSecrets: ['only-one'] } },
      'secrets.identityProviderClientSecrets must hold one client secret per identity provider',
    ],
    [
      'min above max',
      { core: { autoscaling: { minReplicas: 5, maxReplicas: 3 } } },
      'core.autoscaling.minReplicas must not exceed maxReplicas',
    ],
    [
      'a short pepper (schema)',
      { secrets: { tokenPepper: 'abc' } },
      "at '/secrets/tokenPepper': 'abc' does not match pattern",
    ],
    [
      'root (schema)',
      { pod: { securityContext: { runAsNonRoot: false } } },
      "at '/pod/securityContext/runAsNonRoot'",
    ],
    [
      'a metrics port equal to the process’s own',
      { metrics: { ports: { core: 8081 } } },
      'metrics.ports.core must differ from core.port',
    ],
    [
      'a scrape interval that is not a duration (schema)',
      { metrics: { podMonitor: { interval: 'often' } } },
      "at '/metrics/podMonitor/interval'",
    ],
    [
      'core exposed outside the cluster (schema)',
      { core: { service: { type: 'LoadBalancer' } } },
      "at '/core/service/type': value must be 'ClusterIP'",
    ],
    [
      'an Ingress host the façade would refuse',
      { ingress: { enabled: true, host: 'origin.example.org' } },
      "the Ingress's host origin.example.org is not one the façade accepts (skin.example.com): it would refuse every MCP request",
    ],
    [
      'allowed hosts without the Ingress’s',
      { ingress: { enabled: true }, config: { allowedHosts: ['origin.example.org'] } },
      "the Ingress's host skin.example.com is not one the façade accepts (origin.example.org)",
    ],
    [
      'an unknown value (schema)',
      { facade: { replicas: 3 } },
      "at '/facade': additional properties 'replicas' not allowed",
    ],
  ];
  for (const [what, values, message] of refusals) {
    it(`refuses to render with ${what}`, () => {
      const result = helm('template', [OWN_SECRETS, values]);
      assert.equal(result.ok, false);
      assert.ok(result.stderr.includes(message), result.stderr);
    });
  }
});
