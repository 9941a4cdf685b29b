/**
 * The chart's values: every value documented in values.yaml and described by values.schema.json (the two
 * trees are the same), every `.Values` path a template reads exists, and the schema (run by ajv here, and by
 * Helm itself at install time) accepts the documented examples and rejects bad values at the right place.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { isMap, isPair, isScalar, parse, parseDocument, type YAMLMap } from 'yaml';
import { CHART, render } from '../support/helm.ts';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  $ref?: string;
  allOf?: Schema[];
};

const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8')) as Schema & {
  definitions: Record<string, Schema>;
};
const valuesText = readFileSync(join(CHART, 'values.yaml'), 'utf8');
const defaults = parse(valuesText) as Record<string, unknown>;
const production = parse(readFileSync(join(CHART, 'examples/production-values.yaml'), 'utf8')) as object;
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);

function resolveRef(node: Schema): Schema {
  // A component narrowed for one process (core, inference): the tree is the referenced definition's.
  if (node.allOf?.[0]?.$ref) return resolveRef(node.allOf[0]);
  if (!node.$ref) return node;
  return schema.definitions[node.$ref.replace('#/definitions/', '')]!;
}

/** Paths of every key in a values object, down to leaves and free-form maps the schema leaves open. */
function valuePaths(value: unknown, node: Schema, prefix: string): string[] {
  const resolved = resolveRef(node);
  if (!resolved.properties || typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const childSchema = resolved.properties?.[key];
    return [path, ...(childSchema ? valuePaths(child, childSchema, path) : [])];
  });
}

/** Paths of every property the schema names, where values.yaml must then have the key. */
function schemaPaths(node: Schema, prefix: string): string[] {
  const resolved = resolveRef(node);
  return Object.entries(resolved.properties ?? {}).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...schemaPaths(child, path)];
  });
}

/** Helm's merge of a values file over the defaults: maps merge key by key, anything else replaces. */
function merged(base: unknown, over: unknown): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(base) || !isObject(over)) return over;
  const result = { ...base };
  for (const [key, value] of Object.entries(over)) result[key] = merged(base[key], value);
  return result;
}

function errorsOf(values: unknown): string[] {
  return validate(values) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

function withOverride(path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(defaults);
  const keys = path.split('.');
  let node = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
  return copy;
}

describe('helm chart values', () => {
  it('documents every key of values.yaml with a comment above it', () => {
    const undocumented: string[] = [];
    const walk = (map: YAMLMap, prefix: string) => {
      for (const [index, pair] of map.items.entries()) {
        if (!isPair(pair) || !isScalar(pair.key)) continue;
        const path = prefix ? `${prefix}.${pair.key.value}` : String(pair.key.value);
        // The yaml parser gives the comment above a map's first key to the map itself.
        const comment = pair.key.commentBefore ?? (index === 0 ? map.commentBefore : undefined);
        if (!comment?.trim()) undocumented.push(path);
        // Defaults inside free-form objects (security contexts, resources) are documented by their parent.
        if (
          isMap(pair.value) &&
          ![
            'securityContext',
            'containerSecurityContext',
            'resources',
            'coreClientNamespaceLabels',
            'namespaceLabels',
          ].includes(String(pair.key.value))
        )
          walk(pair.value, path);
      }
    };
    const doc = parseDocument(valuesText);
    assert.ok(isMap(doc.contents));
    walk(doc.contents, '');
    assert.deepEqual(undocumented, []);
  });

  it('has the same tree in values.yaml and values.schema.json', () => {
    const inValues = new Set(valuePaths(defaults, schema, ''));
    const inSchema = new Set(schemaPaths(schema, ''));
    const openMaps =
      /(\.|^)(securityContext|containerSecurityContext|resources|seccompProfile|capabilities)(\.|$)/;
    assert.deepEqual(
      [...inValues].filter((p) => !inSchema.has(p)),
      [],
      'values.yaml keys the schema lacks',
    );
    const missing = [...inSchema].filter((p) => !inValues.has(p) && !openMaps.test(p));
    assert.deepEqual(missing, [], 'schema properties values.yaml lacks');
    assert.equal(schema.additionalProperties, false);
  });

  it('reads in templates only .Values paths that values.yaml defines', () => {
    const dir = join(CHART, 'templates');
    const used = new Set<string>();
    for (const file of readdirSync(dir)) {
      for (const match of readFileSync(join(dir, file), 'utf8').matchAll(/\.Values((?:\.[A-Za-z0-9_]+)+)/g))
        used.add(match[1]!.slice(1));
    }
    // `(index $.Values $component).x` reads each component's x: check those through every component.
    const known = new Set(valuePaths(defaults, schema, ''));
    assert.ok(used.size > 40, `only ${used.size} paths found: the scan is broken`);
    assert.deepEqual(
      [...used].filter((p) => !known.has(p)),
      [],
    );
  });

  it('shows in the chart README the production example the tests render', () => {
    const example = readFileSync(join(CHART, 'examples/production-values.yaml'), 'utf8');
    assert.ok(readFileSync(join(CHART, 'README.md'), 'utf8').includes(`\`\`\`yaml\n${example}\`\`\``));
  });

  it('has the README install command wait for the migration Job as long as it may run', () => {
    // Helm's own default, 5 minutes, gave up on the hook halfway through the Job's 600 s.
    const command = /^helm upgrade --install .*$/m.exec(readFileSync(join(CHART, 'README.md'), 'utf8'))?.[0];
    const minutes = Number(/--timeout (\d+)m\b/.exec(command ?? '')?.[1]);
    const deadline = (defaults.migration as { activeDeadlineSeconds: number }).activeDeadlineSeconds;
    assert.ok(minutes * 60 > deadline, `${command}: --timeout under the Job's ${deadline} s`);
  });

  it('names in values.yaml every variable the ConfigMap sets from a value, as the README names it', function () {
    this.timeout(60_000);
    const manifests = render(production, {
      config: {
        allowedHosts: ['skin.example.com'],
        mcpAllowedOrigins: ['https://inspector.example.com'],
        rateLimits: { tools: ['recommend_products=20/hour'] },
      },
    });
    const configMap = manifests.find((m) => m.kind === 'ConfigMap')!;
    const fixed = new Set(['NODE_ENV', 'DATA_DIR', 'CORE_URL', 'INFERENCE_URL']);
    const unnamed = Object.keys(configMap.data ?? {})
      .filter((name) => !fixed.has(name))
      .map((name) => name.replace(/^IDP_\d_/, 'IDP_n_'))
      .filter((name) => !new RegExp(`\\b${name}\\b`).test(valuesText));
    assert.deepEqual(unnamed, []);
    assert.equal(configMap.data?.MCP_ALLOWED_ORIGINS, 'https://inspector.example.com');
  });

  it('accepts the defaults and the README production example', () => {
    assert.deepEqual(errorsOf(defaults), []);
    assert.deepEqual(errorsOf(merged(defaults, production)), []);
  });

  const refusals: [string, unknown, string][] = [
    [
      'publicBaseUrl',
      'https://skin.example.com/mcp',
      '/publicBaseUrl must match pattern "^(https://[^/\\s?#]+)?$"',
    ],
    ['publicBaseUrl', 'skin.example.com', '/publicBaseUrl must match pattern "^(https://[^/\\s?#]+)?$"'],
    [
      'publicBaseUrl',
      'http://skin.example.com',
      '/publicBaseUrl must match pattern "^(https://[^/\\s?#]+)?$"',
    ],
    ['config.shutdown.timeoutSeconds', 0, '/config/shutdown/timeoutSeconds must be >= 1'],
    ['secrets.tokenPepper', 'abcd', '/secrets/tokenPepper must match pattern "^([a-fA-F0-9]{64,})?$"'],
    [
      'secrets.oauthCookieKeys',
      'short,keys',
      '/secrets/oauthCookieKeys must match pattern "^(\\s*[^,\\s]{32,}\\s*(,\\s*[^,\\s]{32,}\\s*)*)?$"',
    ],
    [
      'database.url',
      'mysql://db/skin',
      '/database/url must match pattern "^((postgres|postgresql)://\\S+)?$"',
    ],
    ['config.logLevel', 'verbose', '/config/logLevel must be equal to one of the allowed values'],
    [
      'config.mcpAllowedOrigins',
      ['https://*.example.com'],
      '/config/mcpAllowedOrigins/0 must match pattern "^https?://([a-z0-9.-]+|\\[[0-9a-f:]+\\])(:[0-9]{1,5})?$"',
    ],
    ['config.trustProxyHops', -1, '/config/trustProxyHops must be >= 0'],
    ['config.coreTimeoutMs', 0, '/config/coreTimeoutMs must be >= 1'],
    ['core.replicaCount', 0, '/core/replicaCount must be >= 1'],
    ['facade.port', 70000, '/facade/port must be <= 65535'],
    ['core.service.type', 'LoadBalancer', '/core/service/type must be equal to constant'],
    ['inference.service.type', 'NodePort', '/inference/service/type must be equal to constant'],
    [
      'inference.autoscaling.targetCPUUtilizationPercentage',
      150,
      '/inference/autoscaling/targetCPUUtilizationPercentage must be <= 100',
    ],
    ['facade.servce', {}, '/facade must NOT have additional properties'],
    [
      'pod.securityContext.runAsNonRoot',
      false,
      '/pod/securityContext/runAsNonRoot must be equal to constant',
    ],
    [
      'pod.containerSecurityContext.readOnlyRootFilesystem',
      false,
      '/pod/containerSecurityContext/readOnlyRootFilesystem must be equal to constant',
    ],
    [
      'pod.containerSecurityContext.allowPrivilegeEscalation',
      true,
      '/pod/containerSecurityContext/allowPrivilegeEscalation must be equal to constant',
    ],
    [
      'pod.containerSecurityContext.capabilities',
      { drop: ['NET_RAW'] },
      '/pod/containerSecurityContext/capabilities/drop must contain at least 1 valid item(s)',
    ],
    [
      'oauth.identityProviders',
      [{ issuer: 'https://a.example', clientId: true }],
      '/oauth/identityProviders/0/clientId must be string',
    ],
    [
      'config.rateLimits.tools',
      ['recommend_products=20 per minute'],
      '/config/rateLimits/tools/0 must match pattern',
    ],
    ['config.admissions.pauseQueued', 0, '/config/admissions/pauseQueued must be >= 1'],
    ['image.pullPolicy', 'Sometimes', '/image/pullPolicy must be equal to one of the allowed values'],
  ];
  for (const [path, value, expected] of refusals) {
    it(`refuses ${path} = ${JSON.stringify(value)}`, () => {
      const values =
        path === 'facade.servce'
          ? withOverride('facade', { ...(defaults.facade as object), servce: {} })
          : withOverride(path, value);
      const errors = errorsOf(values);
      assert.ok(
        errors.some((e) => e.startsWith(expected)),
        `expected "${expected}", got ${JSON.stringify(errors)}`,
      );
    });
  }

  it('refuses a value and an existing Secret for the same thing', () => {
    const both = withOverride('database', {
      url: 'postgresql://u@db/s',
      existingSecret: 'db',
      existingSecretKey: 'uri',
    });
    assert.ok(errorsOf(both).includes('/database/url must NOT have more than 0 characters'));
    const secrets = withOverride('secrets', {
      ...(defaults.secrets as object),
      existingSecret: 's',
      tokenPepper: 'a'.repeat(64),
    });
    assert.ok(errorsOf(secrets).includes('/secrets/tokenPepper must NOT have more than 0 characters'));
  });
});
