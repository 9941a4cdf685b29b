/**
 * The environment each process is given by `npm start` (scripts/start.ts), as the Helm chart gives it: the
 * configuration every process shares (the chart's ConfigMap), and of the secrets only those its own
 * configuration loader reads (the chart's per-Deployment secretKeyRefs): core the token pepper and the
 * ALTCHA key, the façade the authorization server's keys and the identity providers' client secrets, both
 * DATABASE_URL (it may hold a password), inference none. Nothing else of the supervisor's environment is
 * passed on but the basics a Node process needs (PATH, HOME, locale, NODE_*, OTEL_* for traces).
 * test/shared/process-env.test.ts checks each list against what its loader actually reads, and the chart's
 * Deployments against SECRET_VARIABLES.
 */

export type ProcessRole = 'inference' | 'core' | 'facade';

/** What config.ts's shared reader reads, and the chart's ConfigMap holds: no secret among them. */
export const SHARED_VARIABLES: readonly string[] = [
  'NODE_ENV',
  'DATA_DIR',
  'EMBEDDED_PG_PORT',
  'PORT',
  'FACADE_PORT',
  'CORE_PORT',
  'INFERENCE_PORT',
  'PUBLIC_BASE_URL',
  'CORE_URL',
  'CORE_HOST',
  'INFERENCE_URL',
  'INFERENCE_HOST',
  'CORE_TIMEOUT_MS',
  'MCP_REQUEST_TIMEOUT_MS',
  'INFERENCE_TIMEOUT_MS',
  'INFERENCE_STAGE_DELAY_MS',
  'INFERENCE_STALL_MS',
  'SCAN_ABANDONED_AFTER_HOURS',
  'ANALYSIS_RETRY_WINDOW_S',
  'ALLOWED_HOSTS',
  'MCP_ALLOWED_ORIGINS',
  'TRUST_PROXY',
  'RATE_LIMIT_REQUESTS_PER_MINUTE',
  'RATE_LIMIT_CALLS_PER_MINUTE',
  'RATE_LIMIT_SCANS_PER_HOUR',
  'RATE_LIMIT_UPLOADS_PER_HOUR',
  'RATE_LIMIT_REGISTRATIONS_PER_HOUR',
  'RATE_LIMIT_TOOLS',
  'ADMISSIONS_PAUSE_QUEUED',
  'ADMISSIONS_RESUME_QUEUED',
  'ADMISSIONS_PAUSE_AGE_SECONDS',
  'ADMISSIONS_RESUME_AGE_SECONDS',
  'ADMISSIONS_CHECK_INTERVAL_MS',
  'LOAD_SAMPLE_CATALOG',
  'PHOTO_MAX_BYTES',
  'PHOTO_MAX_PIXELS',
  'PHOTO_UPLOADS_PER_HOUR',
  'SHUTDOWN_DRAIN_DELAY_MS',
  'SHUTDOWN_TIMEOUT_MS',
  'LOG_LEVEL',
  'FACADE_METRICS_PORT',
  'CORE_METRICS_PORT',
  'INFERENCE_METRICS_PORT',
  'METRICS_HOST',
  'GRPC_MAX_STREAMS_PER_CONNECTION',
  'GRPC_MAX_WATCHES',
  'GRPC_REQUEST_READ_TIMEOUT_MS',
  'GRPC_KEEPALIVE_INTERVAL_MS',
  'GRPC_IDLE_TIMEOUT_MS',
  // The identity providers' public half (the façade reads it; the chart's ConfigMap gives it to all).
  ...['1', '2'].flatMap((id) => ['ISSUER', 'CLIENT_ID', 'NAME'].map((k) => `IDP_${id}_${k}`)),
];

/** The secrets each process's loader reads, and nothing more (the chart's secretKeyRefs). */
export const SECRET_VARIABLES: Readonly<Record<ProcessRole, readonly string[]>> = {
  inference: [],
  core: ['DATABASE_URL', 'TOKEN_PEPPER', 'ALTCHA_HMAC_KEY'],
  facade: [
    'DATABASE_URL',
    'OAUTH_SIGNING_KEY',
    'OAUTH_COOKIE_KEYS',
    'IDP_1_CLIENT_SECRET',
    'IDP_2_CLIENT_SECRET',
  ],
};

/** What any Node process needs to run as the supervisor does: no configuration, no secret. */
const BASICS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'TZ', 'TMPDIR', 'TERM', 'SSL_CERT_FILE'];
const BASIC_PREFIXES = ['LC_', 'NODE_', 'OTEL_'];

/** The variables `role` may be given. */
export function allowedVariables(role: ProcessRole): Set<string> {
  return new Set([...BASICS, ...SHARED_VARIABLES, ...SECRET_VARIABLES[role]]);
}

/** `env` cut down to what `role` may be given. */
export function processEnv(role: ProcessRole, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const allowed = allowedVariables(role);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (allowed.has(name) || (BASIC_PREFIXES.some((p) => name.startsWith(p)) && !isSecretName(name))) {
      out[name] = value;
    }
  }
  return out;
}

/** NODE_OPTIONS and OTEL_* carry no secret of ours; a name that says it holds one is kept out anyway. */
function isSecretName(name: string): boolean {
  return /SECRET|PEPPER|PASSWORD|_KEY$|_KEYS$/.test(name);
}
