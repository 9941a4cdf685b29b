/** When span export is on: only when the standard OTEL_* variables ask for it; off by default. */
import assert from 'node:assert/strict';
import { traceExportWanted } from '../../services/shared/trace-export.ts';

describe('trace export settings', () => {
  it('is off by default and when disabled, on for an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp', () => {
    assert.equal(traceExportWanted({}), false);
    assert.equal(traceExportWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
    assert.equal(traceExportWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' }), true);
    assert.equal(traceExportWanted({ OTEL_TRACES_EXPORTER: 'otlp' }), true);
    assert.equal(
      traceExportWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
      false,
    );
    assert.equal(
      traceExportWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
      false,
    );
  });

  it('refuses an exporter it does not have, by name', () => {
    assert.throws(
      () => traceExportWanted({ OTEL_TRACES_EXPORTER: 'zipkin' }),
      /OTEL_TRACES_EXPORTER must be otlp or none/,
    );
  });
});
