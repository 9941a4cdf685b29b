/**
 * When span export is on: only when the standard OTEL_* variables ask for it (off by default), with
 * every bad value refused at start at once, like the rest of the configuration.
 */
import assert from 'node:assert/strict';
import { ConfigError } from '../../services/shared/env-reader.ts';
import { traceExportSettings } from '../../services/shared/trace-export.ts';

const wanted = (env: NodeJS.ProcessEnv) => traceExportSettings('core', env) !== undefined;

describe('trace export settings', () => {
  it('is off by default and when disabled, on for an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp', () => {
    assert.equal(wanted({}), false);
    assert.equal(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(wanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
    assert.equal(wanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(
      wanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
      false,
    );
    assert.equal(wanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
  });

  it('names the service by role unless OTEL_SERVICE_NAME does, and reads the sampler', () => {
    const on = { OTEL_TRACES_EXPORTER: 'otlp' };
    assert.deepEqual(traceExportSettings('inference', on), {
      serviceName: 'skinmatch-inference',
      scheduleDelayMs: 5000,
      sampler: 'always_on',
      parentBased: true,
      ratio: 1,
    });
    const custom = traceExportSettings('core', {
      ...on,
      OTEL_SERVICE_NAME: 'skin-core',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    assert.equal(custom?.serviceName, 'skin-core');
    assert.equal(custom?.parentBased, false);
    assert.equal(custom?.ratio, 0.25);
    assert.equal(custom?.scheduleDelayMs, 200);
  });

  it('refuses every bad value at once, by name', () => {
    assert.throws(
      () =>
        traceExportSettings('core', {
          OTEL_TRACES_EXPORTER: 'zipkin',
          OTEL_TRACES_SAMPLER: 'sometimes',
          OTEL_TRACES_SAMPLER_ARG: '2',
          OTEL_BSP_SCHEDULE_DELAY: 'soon',
        }),
      (err: ConfigError) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.problems.map((p) => p.split(':')[0]),
          [
            'OTEL_TRACES_EXPORTER',
            'OTEL_BSP_SCHEDULE_DELAY',
            'OTEL_TRACES_SAMPLER',
            'OTEL_TRACES_SAMPLER_ARG',
          ],
        );
        return true;
      },
    );
  });

  it("refuses the exporter's own bad values too, a header's value only by its length", () => {
    assert.throws(
      () =>
        traceExportSettings('core', {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'otel-collector:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://token@c/v1/traces',
          OTEL_EXPORTER_OTLP_TIMEOUT: 'soon',
          OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer x,oops',
        }),
      (err: ConfigError) => {
        assert.deepEqual(err.problems, [
          'OTEL_EXPORTER_OTLP_ENDPOINT: got "otel-collector:4318", expected an http:// or https:// URL (e.g. http://otel-collector:4318)',
          'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: got 23 characters, expected an http:// or https:// URL (e.g. http://otel-collector:4318)',
          'OTEL_EXPORTER_OTLP_TIMEOUT: got "soon", expected a positive number of milliseconds',
          'OTEL_EXPORTER_OTLP_HEADERS: got 27 characters, expected key=value pairs separated by commas',
        ]);
        return true;
      },
    );
    const good = traceExportSettings('core', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2000',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer x, x-tenant = a',
    });
    assert.equal(good?.serviceName, 'skinmatch-core');
  });
});
