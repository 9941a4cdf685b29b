/**
 * Configuration, read and validated once at start. Every key is documented in the README's configuration
 * table. Every bad value is reported, all at once, one line each (env-reader.ts); in production nothing of
 * development's is accepted: no generated or placeholder key, no public address on localhost or plain http. Each process reads only the secrets it uses: core the token pepper (`loadCoreConfig`), the façade
 * the authorization server's keys (`loadFacadeConfig`), inference none (`loadConfig`); so the
 * internet-facing façade never holds the key that turns tokens into stored hashes. In production a missing
 * secret stops the process at start; in development one is generated once under the data directory, with a
 * loud warning.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { BacklogBounds } from '../scan/admissions-governor.ts';
import { oauthSecrets, redactConfiguredSecrets } from './configured-secrets.ts';
import { EnvReader } from './env-reader.ts';
import { loadOAuthConfig, type OAuthConfig } from './oauth-config.ts';
import { described, describedPlaceholder, isPlaceholder, readSecret, type SecretContext } from './secrets.ts';
import { readServerLimits, type ServerLimits } from './server-limits.ts';
import { quote } from './text.ts';

/** A rate-limit budget of its own for one tool: `points` calls per `durationSeconds`. */
export interface ToolBudget {
  readonly tool: string;
  readonly points: number;
  readonly durationSeconds: number;
}

export interface Config {
  readonly production: boolean;
  /** PostgreSQL connection string; unset means the embedded server the supervisor starts. */
  readonly databaseUrl: string | undefined;
  /** Where development state lives (embedded PostgreSQL, generated pepper). */
  readonly dataDir: string;
  /** Port of `npm start`'s embedded PostgreSQL (without DATABASE_URL; `npm start`, admin, catalog:import). */
  readonly embeddedPgPort: number;
  /** Public address of the façade, used to build upload and save links. */
  readonly publicBaseUrl: string;
  readonly facadePort: number;
  readonly corePort: number;
  /** Address the façade uses to reach core (h2c). */
  readonly coreUrl: string;
  /** Interfaces core and inference listen on: loopback unless a container needs more. */
  readonly coreHost: string;
  readonly inferenceHost: string;
  /** Deadline of each façade → core call, and the longest an MCP request waits for its answer. */
  readonly coreTimeoutMs: number;
  readonly mcpRequestTimeoutMs: number;
  /** Deadline of one AnalyzeFace stream, core → inference; past it the attempt counts as failed. */
  readonly inferenceTimeoutMs: number;
  readonly inferencePort: number;
  /** A scan still awaiting its photo this long after it started is purged (guest scans also at expiry). */
  readonly scanAbandonedAfterMs: number;
  /** How long a photo whose analysis fails on our side is tried again before its scan fails. */
  readonly analysisRetryWindowMs: number;
  /** Address core's scan worker uses to reach the inference service (h2c). */
  readonly inferenceUrl: string;
  /** Delay added to every analysis stage (demos and fault-injection tests); 0 in normal use. */
  readonly inferenceStageDelayMs: number;
  /** Inference work under way that has not moved on for this long is stuck (health NOT_SERVING). */
  readonly inferenceStallMs: number;
  /** Host header values the façade accepts (DNS-rebinding protection). */
  readonly allowedHosts: readonly string[];
  /** Requests of any kind on the MCP endpoints per network (per account) per minute. */
  readonly guestRequestsPerMinute: number;
  /** Guest tool calls per network per minute, and scans started per network per hour. */
  readonly guestCallsPerMinute: number;
  readonly guestScansPerHour: number;
  /** Photo uploads per network per hour on the person's upload page. */
  readonly guestUploadsPerHour: number;
  /** OAuth client registrations per network per hour. */
  readonly registrationsPerHour: number;
  /** Budgets of single tools beyond the per-minute one (RATE_LIMIT_TOOLS). */
  readonly toolBudgets: readonly ToolBudget[];
  /** Automatic admissions: the analysis backlog's bounds, and how often each core looks at it. */
  readonly admissionBounds: BacklogBounds;
  readonly admissionsCheckMs: number;
  /** Proxies in front that append to X-Forwarded-For (0: use the socket's address). */
  readonly trustedProxyHops: number;
  /**
   * Load the bundled demo catalog into an empty catalog at start. Off unless set; `npm start` sets it when
   * it runs the embedded PostgreSQL, so a deployment that forgets NODE_ENV never serves invented products.
   */
  readonly loadSampleCatalog: boolean;
  /** Upload bounds: bytes of one photo (the façade stops the body there too), and pixels by its header. */
  readonly photoMaxBytes: number;
  readonly photoMaxPixels: number;
  /** Photos one scan may be sent per hour (retakes included). */
  readonly photoUploadsPerHour: number;
  /** On SIGTERM: how long the process keeps serving while not ready, so load balancers stop sending it work. */
  readonly shutdownDrainDelayMs: number;
  /** On SIGTERM: the bound on the whole shutdown; work still running then is handed back, and the process exits. */
  readonly shutdownTimeoutMs: number;
  readonly logLevel: string;
  /** Each process's metrics port (`/metrics`; 0: off), distinct so that one machine runs all three. */
  readonly metricsPorts: { readonly facade: number; readonly core: number; readonly inference: number };
  /** Interface of the metrics endpoints (METRICS_HOST); unset: core's and inference's own, loopback for the façade. */
  readonly metricsHost: string | undefined;
  /** Bounds of core's (and inference's) gRPC server: streams, watches, request reads, keepalive (GRPC_*). */
  readonly serverLimits: ServerLimits;
  readonly warnings: readonly string[];
}

export interface CoreConfig extends Config {
  /** Key of the HMAC that turns a scan token (and a consenting browser's secret) into what is stored. */
  readonly tokenPepper: Buffer;
  /** Key of the HMAC that signs the upload page's ALTCHA challenges (core issues and checks them). */
  readonly altchaHmacKey: Buffer;
}

export interface FacadeConfig extends Config {
  /** The authorization server's signing key, cookie keys and upstream identity providers. */
  readonly oauth: OAuthConfig;
  /** Browser origins allowed to call the MCP endpoints across origins (CORS); none by default. */
  readonly mcpAllowedOrigins: readonly string[];
}

/** Core's configuration: the shared keys, the token pepper and the ALTCHA key. */
export function loadCoreConfig(env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const reader = new EnvReader(env);
  const config = readConfig(reader);
  const warnings = [...config.warnings];
  const context: SecretContext = { reader, production: config.production, dataDir: config.dataDir, warnings };
  productionEssentials(reader, config);
  const tokenPepper = hexSecret('TOKEN_PEPPER', 'token-pepper', context);
  const altchaHmacKey = hexSecret('ALTCHA_HMAC_KEY', 'altcha-hmac-key', context);
  if (config.production && tokenPepper && altchaHmacKey?.equals(tokenPepper)) {
    reader.fault('ALTCHA_HMAC_KEY: got the same key as TOKEN_PEPPER, expected a key of its own');
  }
  reader.done();
  redactConfiguredSecrets(
    env,
    ['TOKEN_PEPPER', 'ALTCHA_HMAC_KEY'],
    [tokenPepper!.toString('hex'), altchaHmacKey!.toString('hex')],
  );
  return { ...config, tokenPepper: tokenPepper!, altchaHmacKey: altchaHmacKey!, warnings };
}

/** The façade's configuration: the shared keys and the authorization server's secrets, never the pepper. */
export function loadFacadeConfig(env: NodeJS.ProcessEnv = process.env): FacadeConfig {
  const reader = new EnvReader(env);
  const config = readConfig(reader);
  const warnings = [...config.warnings];
  productionEssentials(reader, config);
  const oauth = loadOAuthConfig({ reader, production: config.production, dataDir: config.dataDir, warnings });
  const mcpAllowedOrigins = allowedOrigins(reader);
  reader.done();
  redactConfiguredSecrets(
    env,
    ['OAUTH_SIGNING_KEY', 'OAUTH_COOKIE_KEYS', 'IDP_1_CLIENT_SECRET', 'IDP_2_CLIENT_SECRET'],
    oauthSecrets(oauth),
  );
  return { ...config, oauth: oauth!, mcpAllowedOrigins, warnings };
}

/** The configuration every process shares, with no secret: all that inference needs. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const reader = new EnvReader(env);
  const config = readConfig(reader);
  reader.done();
  redactConfiguredSecrets(env, [], []);
  return config;
}

/**
 * The operator commands' configuration (admin, catalog:import): loadConfig's, and in production the shared
 * database. Without it they would start an embedded PostgreSQL of their own, answer from it (admissions
 * "on", an import that lands nowhere) and throw it away.
 */
export function loadOperatorConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const reader = new EnvReader(env);
  const config = readConfig(reader);
  if (config.production) productionDatabase(reader);
  reader.done();
  redactConfiguredSecrets(env, [], []);
  return config;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function readConfig(env: EnvReader): Config {
  const nodeEnv = env.oneOf('NODE_ENV', ['production', 'development', 'test'], 'development');
  const production = nodeEnv === 'production';
  const warnings: string[] = [];
  const dataDir = resolve(env.value('DATA_DIR') ?? '.data');
  const embeddedPgPort = env.port('EMBEDDED_PG_PORT', 54320);
  const facadePort = env.port(env.value('FACADE_PORT') ? 'FACADE_PORT' : 'PORT', 8080);
  const corePort = env.port('CORE_PORT', 8081);
  const inferencePort = env.port('INFERENCE_PORT', 8082);
  const publicBaseUrl = env.url('PUBLIC_BASE_URL', `http://localhost:${facadePort}`).replace(/\/+$/, '');
  const baseHost = new URL(publicBaseUrl).host;
  const allowedHosts = (
    env.value('ALLOWED_HOSTS') ?? `${baseHost},localhost:${facadePort},127.0.0.1:${facadePort}`
  )
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const host of allowedHosts) {
    if (!/^[a-z0-9.\-[\]:]+$/.test(host)) {
      env.problem(
        'ALLOWED_HOSTS',
        quote(host),
        'comma-separated host[:port] values, without a scheme or path',
      );
    }
  }
  const shutdownDrainDelayMs = env.count('SHUTDOWN_DRAIN_DELAY_MS', 0);
  const shutdownTimeoutMs = env.positive('SHUTDOWN_TIMEOUT_MS', 25_000);
  if (shutdownDrainDelayMs >= shutdownTimeoutMs) {
    env.fault(
      `SHUTDOWN_DRAIN_DELAY_MS: got ${shutdownDrainDelayMs}, expected less than SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs})`,
    );
  }
  return {
    production,
    databaseUrl: env.value('DATABASE_URL')
      ? env.url('DATABASE_URL', '', ['postgres:', 'postgresql:'], true) || undefined
      : undefined,
    dataDir,
    embeddedPgPort,
    publicBaseUrl,
    facadePort,
    corePort,
    coreUrl: env.url('CORE_URL', `http://127.0.0.1:${corePort}`),
    coreHost: env.host('CORE_HOST', '127.0.0.1'),
    inferenceHost: env.host('INFERENCE_HOST', '127.0.0.1'),
    coreTimeoutMs: env.positive('CORE_TIMEOUT_MS', 10_000),
    mcpRequestTimeoutMs: env.positive('MCP_REQUEST_TIMEOUT_MS', 15_000),
    inferenceTimeoutMs: env.positive('INFERENCE_TIMEOUT_MS', 30_000),
    inferencePort,
    scanAbandonedAfterMs: env.positive('SCAN_ABANDONED_AFTER_HOURS', 7 * 24) * 60 * 60 * 1000,
    analysisRetryWindowMs: env.positive('ANALYSIS_RETRY_WINDOW_S', 30 * 60) * 1000,
    inferenceUrl: env.url('INFERENCE_URL', `http://127.0.0.1:${inferencePort}`),
    inferenceStageDelayMs: env.count('INFERENCE_STAGE_DELAY_MS', 0),
    inferenceStallMs: env.positive('INFERENCE_STALL_MS', 120_000),
    allowedHosts,
    guestRequestsPerMinute: env.positive('RATE_LIMIT_REQUESTS_PER_MINUTE', 600),
    guestCallsPerMinute: env.positive('RATE_LIMIT_CALLS_PER_MINUTE', 120),
    guestScansPerHour: env.positive('RATE_LIMIT_SCANS_PER_HOUR', 30),
    guestUploadsPerHour: env.positive('RATE_LIMIT_UPLOADS_PER_HOUR', 20),
    registrationsPerHour: env.positive('RATE_LIMIT_REGISTRATIONS_PER_HOUR', 20),
    toolBudgets: toolBudgets(env),
    admissionBounds: admissionBounds(env),
    admissionsCheckMs: env.positive('ADMISSIONS_CHECK_INTERVAL_MS', 5000),
    trustedProxyHops: proxyHops(env),
    loadSampleCatalog: env.oneOf('LOAD_SAMPLE_CATALOG', ['true', 'false'], 'false') === 'true',
    photoMaxBytes: env.positive('PHOTO_MAX_BYTES', 10 * 1024 * 1024),
    photoMaxPixels: env.positive('PHOTO_MAX_PIXELS', 40_000_000),
    photoUploadsPerHour: env.positive('PHOTO_UPLOADS_PER_HOUR', 20),
    shutdownDrainDelayMs,
    shutdownTimeoutMs,
    logLevel: env.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    metricsPorts: {
      facade: env.port('FACADE_METRICS_PORT', 9464),
      core: env.port('CORE_METRICS_PORT', 9465),
      inference: env.port('INFERENCE_METRICS_PORT', 9466),
    },
    metricsHost: env.value('METRICS_HOST'),
    serverLimits: readServerLimits(env),
    warnings,
  };
}

/** MCP_ALLOWED_ORIGINS: exact origins (scheme, host, a port other than the default), no wildcard or path. */
function allowedOrigins(env: EnvReader): string[] {
  const origins = (env.value('MCP_ALLOWED_ORIGINS') ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  return origins.filter((origin) => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined;
    const exact = url && /^https?:$/.test(url.protocol) && url.origin === origin && !origin.includes('*');
    if (!exact) {
      env.problem(
        'MCP_ALLOWED_ORIGINS',
        quote(origin),
        'comma-separated origins as browsers send them (e.g. https://inspector.example.com): http(s), lower case, no path, default port or wildcard',
      );
    }
    return exact;
  });
}

const LOOPBACK = /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0|\[::\])$/;

/**
 * What core and the façade need in production beyond their keys: the shared database (the façade's rate
 * limits live there too), and a real https public address, since links sent to people are built on it.
 */
function productionEssentials(env: EnvReader, config: Config): void {
  if (!config.production) return;
  productionDatabase(env);
  const given = env.value('PUBLIC_BASE_URL');
  const expected = "the façade's public https:// address (NODE_ENV=production)";
  if (given === undefined) {
    env.fault(`PUBLIC_BASE_URL: not set, expected ${expected}`);
    return;
  }
  if (!URL.canParse(given)) return; // already reported
  const url = new URL(given);
  if (url.protocol !== 'https:' || LOOPBACK.test(url.hostname))
    env.problem('PUBLIC_BASE_URL', quote(given), expected);
}

function productionDatabase(env: EnvReader): void {
  if (env.value('DATABASE_URL') === undefined) {
    env.fault(
      'DATABASE_URL: not set, expected a postgres:// connection string (required when NODE_ENV=production)',
    );
  }
}

/** TRUST_PROXY: false (default), true (one proxy in front), or the number of proxies in front. */
function proxyHops(env: EnvReader): number {
  const value = env.value('TRUST_PROXY');
  if (value === undefined || value === 'false') return 0;
  if (value === 'true') return 1;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0) return n;
  env.problem('TRUST_PROXY', quote(value), 'false, true or a number of proxies');
  return 0;
}

/** Pause past the upper bounds, resume under the lower ones; a lower bound must be below its upper one. */
function admissionBounds(env: EnvReader): BacklogBounds {
  const bounds = {
    pauseQueued: env.positive('ADMISSIONS_PAUSE_QUEUED', 500),
    resumeQueued: env.positive('ADMISSIONS_RESUME_QUEUED', 100),
    pauseAgeSeconds: env.positive('ADMISSIONS_PAUSE_AGE_SECONDS', 120),
    resumeAgeSeconds: env.positive('ADMISSIONS_RESUME_AGE_SECONDS', 30),
  };
  if (bounds.resumeQueued >= bounds.pauseQueued) {
    env.fault(
      `ADMISSIONS_RESUME_QUEUED: got ${bounds.resumeQueued}, expected less than ADMISSIONS_PAUSE_QUEUED (${bounds.pauseQueued})`,
    );
  }
  if (bounds.resumeAgeSeconds >= bounds.pauseAgeSeconds) {
    env.fault(
      `ADMISSIONS_RESUME_AGE_SECONDS: got ${bounds.resumeAgeSeconds}, expected less than ADMISSIONS_PAUSE_AGE_SECONDS (${bounds.pauseAgeSeconds})`,
    );
  }
  return bounds;
}

const PERIODS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

/** RATE_LIMIT_TOOLS: `tool=N/period` entries, comma-separated (period: second, minute, hour or day). */
function toolBudgets(env: EnvReader): ToolBudget[] {
  const value = env.value('RATE_LIMIT_TOOLS');
  if (!value?.trim()) return [];
  return value.split(',').flatMap((entry) => {
    const match = /^\s*([a-z_]+)\s*=\s*(\d+)\s*\/\s*(second|minute|hour|day)\s*$/.exec(entry);
    if (!match || Number(match[2]) < 1) {
      env.problem(
        'RATE_LIMIT_TOOLS',
        quote(entry.trim()),
        'entries of the form tool=N/period (N ≥ 1; period: second, minute, hour or day)',
      );
      return [];
    }
    return [{ tool: match[1]!, points: Number(match[2]), durationSeconds: PERIODS[match[3]!]! }];
  });
}

const HEX_KEY = 'at least 64 hex characters (32 random bytes)';

/** A key of at least 32 bytes as hex: required in production, generated once in development. */
function hexSecret(name: string, fileName: string, context: SecretContext): Buffer | undefined {
  const value = readSecret(
    { name, fileName, expected: HEX_KEY, generate: () => randomBytes(32).toString('hex') },
    context,
  );
  if (value === undefined) return undefined;
  if (!/^[a-f0-9]{64,}$/i.test(value) || value.length % 2 !== 0) {
    context.reader.problem(name, described(value), HEX_KEY);
    return undefined;
  }
  if (context.production && isPlaceholder(value)) {
    context.reader.problem(
      name,
      describedPlaceholder(value),
      `${HEX_KEY}, not a placeholder (NODE_ENV=production)`,
    );
    return undefined;
  }
  return Buffer.from(value, 'hex');
}
