/**
 * Optional export of spans over OTLP/HTTP (JSON), off by default. It is on when `OTEL_TRACES_EXPORTER` is
 * `otlp`, or when it is unset and an OTLP endpoint is (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`); `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` keep it off. The
 * exporter reads its other standard variables itself (`OTEL_EXPORTER_OTLP_*`: endpoint, headers, timeout),
 * which are checked here at start (exporterProblems); this module reads, and checks at start with the rest of the configuration, the batching delay (`OTEL_BSP_SCHEDULE_DELAY`, ms, default 5000) and the sampler
 * (`OTEL_TRACES_SAMPLER` with `OTEL_TRACES_SAMPLER_ARG`: always_on, always_off, traceidratio and their
 * parentbased_ forms; default parentbased_always_on). The service name is `OTEL_SERVICE_NAME`, else
 * `skinmatch-ROLE`.
 * Without export the processes still carry trace context onward (telemetry.ts).
 */
import { trace } from '@opentelemetry/api';
import { ConfigError } from './env-reader.ts';
import type { Logger } from './logger.ts';

export interface TraceExport {
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/** What the OTEL_* variables ask for; `undefined` from traceExportSettings means no export. */
export interface TraceExportSettings {
  readonly serviceName: string;
  readonly scheduleDelayMs: number;
  /** always_on, always_off or traceidratio, under the parent's decision when parentBased. */
  readonly sampler: 'always_on' | 'always_off' | 'traceidratio';
  readonly parentBased: boolean;
  readonly ratio: number;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio'] as const;

/**
 * The export settings the environment asks for, or undefined for none; every bad value is reported at
 * once (ConfigError, as for the rest of the configuration).
 */
export function traceExportSettings(role: string, env: NodeJS.ProcessEnv): TraceExportSettings | undefined {
  const problems: string[] = [];
  const value = (name: string) => env[name]?.trim() || undefined;
  const exporter = value('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none')
    problems.push(`OTEL_TRACES_EXPORTER: got "${exporter}", expected otlp or none`);
  const wanted =
    value('OTEL_SDK_DISABLED')?.toLowerCase() !== 'true' &&
    exporter !== 'none' &&
    (exporter === 'otlp' ||
      Boolean(value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value('OTEL_EXPORTER_OTLP_ENDPOINT')));
  const delay = Number(value('OTEL_BSP_SCHEDULE_DELAY') ?? 5000);
  if (!Number.isInteger(delay) || delay < 1)
    problems.push(
      `OTEL_BSP_SCHEDULE_DELAY: got "${value('OTEL_BSP_SCHEDULE_DELAY')}", expected a positive number of milliseconds`,
    );
  const samplerName = value('OTEL_TRACES_SAMPLER')?.toLowerCase() ?? 'parentbased_always_on';
  const base = samplerName.replace(/^parentbased_/, '');
  if (!(SAMPLERS as readonly string[]).includes(base))
    problems.push(
      `OTEL_TRACES_SAMPLER: got "${samplerName}", expected always_on, always_off, traceidratio or parentbased_ and one of them`,
    );
  const ratio = Number(value('OTEL_TRACES_SAMPLER_ARG') ?? 1);
  if (!(ratio >= 0 && ratio <= 1))
    problems.push(
      `OTEL_TRACES_SAMPLER_ARG: got "${value('OTEL_TRACES_SAMPLER_ARG')}", expected a ratio from 0 to 1`,
    );
  problems.push(...exporterProblems(value));
  if (problems.length > 0) throw new ConfigError(problems);
  if (!wanted) return undefined;
  return {
    serviceName: value('OTEL_SERVICE_NAME') ?? `skinmatch-${role}`,
    scheduleDelayMs: delay,
    sampler: base as TraceExportSettings['sampler'],
    parentBased: samplerName.startsWith('parentbased_'),
    ratio,
  };
}

/**
 * The exporter's own variables, which it would otherwise take as they come and fail on silently at every
 * export (a typo'd endpoint sent nothing and logged nothing): endpoints, timeouts and headers. A value that
 * may hold a credential (headers, a URL with `@`) is shown only by its length.
 */
function exporterProblems(value: (name: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const name of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
    const url = value(name);
    if (url === undefined || /^https?:$/.test(URL.parse(url)?.protocol ?? '')) continue;
    const given = url.includes('@') ? `${url.length} characters` : `"${url}"`;
    problems.push(
      `${name}: got ${given}, expected an http:// or https:// URL (e.g. http://otel-collector:4318)`,
    );
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TIMEOUT', 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT']) {
    const ms = value(name);
    if (ms !== undefined && !(/^\d+$/.test(ms) && Number(ms) > 0))
      problems.push(`${name}: got "${ms}", expected a positive number of milliseconds`);
  }
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    const headers = value(name);
    if (headers !== undefined && !headers.split(',').every((pair) => /^\s*[^=\s]+\s*=/.test(pair)))
      problems.push(
        `${name}: got ${headers.length} characters, expected key=value pairs separated by commas`,
      );
  }
  return problems;
}

/** Registers a tracer provider that exports spans over OTLP/HTTP, when the settings ask for it. */
export async function startTraceExport(
  settings: TraceExportSettings | undefined,
  logger: Logger,
): Promise<TraceExport | undefined> {
  if (!settings) return undefined;
  // Loaded only when wanted: a process without export never pays for the SDK.
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const root =
    settings.sampler === 'always_on'
      ? new sdk.AlwaysOnSampler()
      : settings.sampler === 'always_off'
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(settings.ratio);
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    sampler: settings.parentBased ? new sdk.ParentBasedSampler({ root }) : root,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: settings.scheduleDelayMs,
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  logger.info({ service: settings.serviceName }, 'exporting traces over OTLP/HTTP');
  return {
    shutdown: () =>
      provider.shutdown().catch((err: Error) => {
        logger.warn({ err: err.message }, 'flushing the last spans failed');
      }),
  };
}
