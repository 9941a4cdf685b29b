/** Values and readers shared by the chart's render tests. */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART, type Manifest } from '../support/helm.ts';

export const SIGNING_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** Every secret given as a value: the chart creates its own Secret. */
export const OWN_SECRETS = {
  publicBaseUrl: 'https://skin.example.com',
  database: { url: 'postgresql://skin:pw@db.example.internal:5432/skin' },
  secrets: {
    tokenPepper: 'ab'.repeat(32),
    altchaHmacKey: 'cd'.repeat(32),
    oauthSigningKey: SIGNING_KEY,
    oauthCookieKeys: 'k'.repeat(32),
    identityProviderClientSecrets: ['upstream-secret-1', 'upstream-secret-2'],
  },
  oauth: {
    identityProviders: [
      { issuer: 'https://idp-one.example.com', clientId: 'one', name: 'One' },
      { issuer: 'https://idp-two.example.com', clientId: 'two' },
    ],
  },
};
export const PRODUCTION = parse(
  readFileSync(join(CHART, 'examples/production-values.yaml'), 'utf8'),
) as object;
export const WORKLOADS = ['facade', 'core', 'inference'] as const;

export function podSpec(m: Manifest) {
  return m.spec.template.spec;
}

/** The environment a container gets: literal values, and secret references as `secret:name/key`. */
export function envOf(container: {
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
}) {
  return Object.fromEntries(
    (container.env ?? []).map((e) => [
      e.name,
      e.valueFrom?.secretKeyRef
        ? `secret:${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`
        : e.value,
    ]),
  );
}
