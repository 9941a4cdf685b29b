/**
 * Configuration, read and validated once at start. Every key is documented in the README's configuration
 * table. Each process reads only the secrets it uses: core the token pepper (`loadCoreConfig`), the façade
 * the authorization server's keys (`loadFacadeConfig`), inference none (`loadConfig`); so the
 * internet-facing façade never holds the key that turns tokens into stored hashes. In production a missing
 * secret stops the process at start; in development one is generated once under the data directory, with a
 * loud warning.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BacklogBounds } from '../scan/admissions-governor.ts';
import { loadOAuthConfig, type OAuthConfig } from './oauth-config.ts';

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
  /** Address core's scan worker uses to reach the inference service (h2c). */
  readonly inferenceUrl: string;
  /** Delay added to every analysis stage (demos and fault-injection tests); 0 in normal use. */
  readonly inferenceStageDelayMs: number;
  /** Host header values the façade accepts (DNS-rebinding protection). */
  readonly allowedHosts: readonly string[];
  /** Guest tool calls per network per minute, and scans started per network per hour. */
  readonly guestCallsPerMinute: number;
  readonly guestScansPerHour: number;
  /** Photo uploads per network per hour on the person's upload page. */
  readonly guestUploadsPerHour: number;
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
  /** Each process's metrics port (`/metrics`; 0: off), distinct so that one machine runs all three. */
  readonly metricsPorts: { readonly facade: number; readonly core: number; readonly inference: number };
  /** Interface of the metrics endpoints (METRICS_HOST); unset: core's and inference's own, loopback for the façade. */
  readonly metricsHost: string | undefined;
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
}

/** Core's configuration: the shared keys, the token pepper and the ALTCHA key. */
export function loadCoreConfig(env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const config = loadConfig(env);
  const { production, dataDir } = config;
  const warnings = [...config.warnings];
  const tokenPepper = hexSecret(
    env.TOKEN_PEPPER,
    'TOKEN_PEPPER',
    'token-pepper',
    production,
    dataDir,
    warnings,
  );
  const altchaHmacKey = hexSecret(
    env.ALTCHA_HMAC_KEY,
    'ALTCHA_HMAC_KEY',
    'altcha-hmac-key',
    production,
    dataDir,
    warnings,
  );
  return { ...config, tokenPepper, altchaHmacKey, warnings };
}

/** The façade's configuration: the shared keys and the authorization server's secrets, never the pepper. */
export function loadFacadeConfig(env: NodeJS.ProcessEnv = process.env): FacadeConfig {
  const config = loadConfig(env);
  const warnings = [...config.warnings];
  const oauth = loadOAuthConfig(env, config.production, config.dataDir, warnings);
  return { ...config, oauth, warnings };
}

/** The configuration every process shares, with no secret: all that inference and the operator tools need. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const warnings: string[] = [];
  const dataDir = resolve(env.DATA_DIR ?? '.data');
  const facadePort = port(env.FACADE_PORT ?? env.PORT, 8080, 'FACADE_PORT');
  const corePort = port(env.CORE_PORT, 8081, 'CORE_PORT');
  const inferencePort = port(env.INFERENCE_PORT, 8082, 'INFERENCE_PORT');
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${facadePort}`).replace(/\/+$/, '');
  const baseHost = new URL(publicBaseUrl).host;
  const allowedHosts = (env.ALLOWED_HOSTS ?? `${baseHost},localhost:${facadePort},127.0.0.1:${facadePort}`)
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return {
    production,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    publicBaseUrl,
    facadePort,
    corePort,
    coreUrl: env.CORE_URL ?? `http://127.0.0.1:${corePort}`,
    coreHost: env.CORE_HOST || '127.0.0.1',
    inferenceHost: env.INFERENCE_HOST || '127.0.0.1',
    coreTimeoutMs: positive(env.CORE_TIMEOUT_MS, 10_000, 'CORE_TIMEOUT_MS'),
    mcpRequestTimeoutMs: positive(env.MCP_REQUEST_TIMEOUT_MS, 15_000, 'MCP_REQUEST_TIMEOUT_MS'),
    inferenceTimeoutMs: positive(env.INFERENCE_TIMEOUT_MS, 30_000, 'INFERENCE_TIMEOUT_MS'),
    inferencePort,
    scanAbandonedAfterMs:
      positive(env.SCAN_ABANDONED_AFTER_HOURS, 7 * 24, 'SCAN_ABANDONED_AFTER_HOURS') * 60 * 60 * 1000,
    inferenceUrl: env.INFERENCE_URL ?? `http://127.0.0.1:${inferencePort}`,
    inferenceStageDelayMs: env.INFERENCE_STAGE_DELAY_MS
      ? positive(env.INFERENCE_STAGE_DELAY_MS, 0, 'INFERENCE_STAGE_DELAY_MS')
      : 0,
    allowedHosts,
    guestCallsPerMinute: positive(env.RATE_LIMIT_CALLS_PER_MINUTE, 120, 'RATE_LIMIT_CALLS_PER_MINUTE'),
    guestScansPerHour: positive(env.RATE_LIMIT_SCANS_PER_HOUR, 30, 'RATE_LIMIT_SCANS_PER_HOUR'),
    guestUploadsPerHour: positive(env.RATE_LIMIT_UPLOADS_PER_HOUR, 20, 'RATE_LIMIT_UPLOADS_PER_HOUR'),
    toolBudgets: toolBudgets(env.RATE_LIMIT_TOOLS),
    admissionBounds: admissionBounds(env),
    admissionsCheckMs: positive(env.ADMISSIONS_CHECK_INTERVAL_MS, 5000, 'ADMISSIONS_CHECK_INTERVAL_MS'),
    trustedProxyHops: proxyHops(env.TRUST_PROXY),
    loadSampleCatalog: env.LOAD_SAMPLE_CATALOG === 'true',
    photoMaxBytes: positive(env.PHOTO_MAX_BYTES, 10 * 1024 * 1024, 'PHOTO_MAX_BYTES'),
    photoMaxPixels: positive(env.PHOTO_MAX_PIXELS, 40_000_000, 'PHOTO_MAX_PIXELS'),
    photoUploadsPerHour: positive(env.PHOTO_UPLOADS_PER_HOUR, 20, 'PHOTO_UPLOADS_PER_HOUR'),
    metricsPorts: {
      facade: port(env.FACADE_METRICS_PORT, 9464, 'FACADE_METRICS_PORT'),
      core: port(env.CORE_METRICS_PORT, 9465, 'CORE_METRICS_PORT'),
      inference: port(env.INFERENCE_METRICS_PORT, 9466, 'INFERENCE_METRICS_PORT'),
    },
    metricsHost: env.METRICS_HOST || undefined,
    warnings,
  };
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

/** TRUST_PROXY: false (default), true (one proxy in front), or the number of proxies in front. */
function proxyHops(value: string | undefined): number {
  if (value === undefined || value === '' || value === 'false') return 0;
  if (value === 'true') return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`TRUST_PROXY must be false, true or a number of proxies, got "${value}"`);
  }
  return n;
}

/** Pause past the upper bounds, resume under the lower ones; a lower bound must be below its upper one. */
function admissionBounds(env: NodeJS.ProcessEnv): BacklogBounds {
  const bounds = {
    pauseQueued: positive(env.ADMISSIONS_PAUSE_QUEUED, 500, 'ADMISSIONS_PAUSE_QUEUED'),
    resumeQueued: positive(env.ADMISSIONS_RESUME_QUEUED, 100, 'ADMISSIONS_RESUME_QUEUED'),
    pauseAgeSeconds: positive(env.ADMISSIONS_PAUSE_AGE_SECONDS, 120, 'ADMISSIONS_PAUSE_AGE_SECONDS'),
    resumeAgeSeconds: positive(env.ADMISSIONS_RESUME_AGE_SECONDS, 30, 'ADMISSIONS_RESUME_AGE_SECONDS'),
  };
  if (bounds.resumeQueued >= bounds.pauseQueued) {
    throw new Error('ADMISSIONS_RESUME_QUEUED must be below ADMISSIONS_PAUSE_QUEUED');
  }
  if (bounds.resumeAgeSeconds >= bounds.pauseAgeSeconds) {
    throw new Error('ADMISSIONS_RESUME_AGE_SECONDS must be below ADMISSIONS_PAUSE_AGE_SECONDS');
  }
  return bounds;
}

const PERIODS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };

/** RATE_LIMIT_TOOLS: `tool=N/period` entries, comma-separated (period: second, minute, hour or day). */
function toolBudgets(value: string | undefined): ToolBudget[] {
  if (!value?.trim()) return [];
  return value.split(',').map((entry) => {
    const match = /^\s*([a-z_]+)\s*=\s*(\d+)\s*\/\s*(second|minute|hour|day)\s*$/.exec(entry);
    if (!match || Number(match[2]) < 1) {
      throw new Error(
        `RATE_LIMIT_TOOLS entries must read tool=N/period (period: second, minute, hour, day), got "${entry.trim()}"`,
      );
    }
    return { tool: match[1]!, points: Number(match[2]), durationSeconds: PERIODS[match[3]!]! };
  });
}

function positive(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

/** A key of at least 32 bytes as hex: required in production, generated once under the data directory in
 * development (with a warning). */
function hexSecret(
  value: string | undefined,
  name: string,
  fileName: string,
  production: boolean,
  dataDir: string,
  warnings: string[],
): Buffer {
  if (value) {
    if (!/^[a-f0-9]{64,}$/i.test(value)) throw new Error(`${name} must be at least 32 bytes as hex`);
    return Buffer.from(value, 'hex');
  }
  if (production) throw new Error(`${name} is required when NODE_ENV=production`);
  const file = join(dataDir, fileName);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  warnings.push(`${name} is not set: using a development key from ${file}. Never do this in production.`);
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}
