/**
 * Optional export of spans over OTLP/HTTP (JSON), off by default. It is on when `OTEL_TRACES_EXPORTER` is
 * `otlp`, or when it is unset and an OTLP endpoint is (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`); `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` keep it off. The
 * exporter reads its other standard variables itself (`OTEL_EXPORTER_OTLP_*`: headers, timeout); this
 * module reads the batching delay (`OTEL_BSP_SCHEDULE_DELAY`, ms, default 5000) and the sampler
 * (`OTEL_TRACES_SAMPLER` with `OTEL_TRACES_SAMPLER_ARG`: always_on, always_off, traceidratio and their
 * parentbased_ forms; default parentbased_always_on). The service name is `OTEL_SERVICE_NAME`, else
 * `skinmatch-ROLE`.
 * Without export the processes still carry trace context onward (telemetry.ts).
 */
import { trace } from '@opentelemetry/api';
import type { Logger } from './logger.ts';

export interface TraceExport {
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for span export. */
export function traceExportWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() ?? '';
  if (exporter === 'none') return false;
  if (exporter === 'otlp') return true;
  if (exporter !== '') throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, got "${exporter}"`);
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** Registers a tracer provider that exports spans, when the environment asks for it. */
export async function startTraceExport(
  role: string,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TraceExport | undefined> {
  if (!traceExportWanted(env)) return undefined;
  // Loaded only when wanted: a process without export never pays for the SDK.
  const [sdk, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || `skinmatch-${role}`;
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY || 5000);
  if (!Number.isInteger(delay) || delay < 1) {
    throw new Error(`OTEL_BSP_SCHEDULE_DELAY must be a positive number of milliseconds, got "${delay}"`);
  }
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    sampler: sampler(sdk, env),
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: delay }),
    ],
  });
  trace.setGlobalTracerProvider(provider);
  logger.info({ service: serviceName }, 'exporting traces over OTLP/HTTP');
  return {
    shutdown: () =>
      provider.shutdown().catch((err: Error) => {
        logger.warn({ err: err.message }, 'flushing the last spans failed');
      }),
  };
}

type Sdk = typeof import('@opentelemetry/sdk-trace');

/** OTEL_TRACES_SAMPLER and its argument, as the specification defines them. */
function sampler(sdk: Sdk, env: NodeJS.ProcessEnv) {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const ratio = () => {
    const arg = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 1);
    if (!(arg >= 0 && arg <= 1)) {
      throw new Error(
        `OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${env.OTEL_TRACES_SAMPLER_ARG}"`,
      );
    }
    return new sdk.TraceIdRatioBasedSampler(arg);
  };
  const roots = {
    always_on: () => new sdk.AlwaysOnSampler(),
    always_off: () => new sdk.AlwaysOffSampler(),
    traceidratio: ratio,
  };
  const base = name.replace(/^parentbased_/, '') as keyof typeof roots;
  if (!(base in roots)) {
    throw new Error(
      `OTEL_TRACES_SAMPLER must be always_on, always_off, traceidratio or a parentbased_ form, got "${name}"`,
    );
  }
  const root = roots[base]();
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root }) : root;
}
