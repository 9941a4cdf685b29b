import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CALIBRATION,
  CALIBRATION_PATH,
  TABLE_PATH,
} from '../../services/inference/calibration/calibration.ts';
import { deriveCalibration, parseTable } from '../../services/inference/calibration/derive.ts';
import { calibrationFigures } from '../../services/inference/calibration/figures.ts';
import { scoreRaw } from '../../services/inference/scoring.ts';
import { CONCERN_THRESHOLDS, MEASURES } from '../../services/shared/measures.ts';

const FIGURES = fileURLToPath(new URL('../../docs/calibration-figures.md', import.meta.url));

describe('calibration from the committed table of raw measures', () => {
  const rows = parseTable(readFileSync(TABLE_PATH, 'utf8'));
  const accepted = rows.filter((row) => row.outcome === 'ok' && row.raw);

  it('the committed calibration is what the table derives (re-derive: npm run calibrate)', () => {
    assert.deepEqual(JSON.parse(readFileSync(CALIBRATION_PATH, 'utf8')), deriveCalibration(rows));
    assert.deepEqual(CALIBRATION, deriveCalibration(rows));
  });

  it('docs/calibration-figures.md is what the table gives', () => {
    assert.equal(readFileSync(FIGURES, 'utf8'), calibrationFigures(rows, deriveCalibration(rows)));
  });

  it('the table covers the reference faces and the package crops, and holds raw measures only', () => {
    assert.ok(
      rows.filter((row) => row.source === 'deepface-dataset').length >= 60,
      'reference faces measured',
    );
    assert.ok(rows.filter((row) => row.source === 'face-api-demo').length >= 4, 'package crops measured');
    assert.ok(accepted.length >= 50);
    for (const row of accepted)
      for (const m of MEASURES) assert.ok(Number.isFinite(row.raw![m]), `${row.photo} ${m}`);
  });

  it('no measure is constant over the accepted faces', () => {
    for (const m of MEASURES) {
      const scores = new Set(accepted.map((row) => scoreRaw(m, row.raw![m])));
      assert.ok(scores.size >= 3, `${m} takes ${scores.size} distinct scores`);
    }
  });

  it('each concern fires for at most 40 % of the accepted faces', () => {
    for (const m of MEASURES) {
      const firing = accepted.filter((row) => scoreRaw(m, row.raw![m]) < CONCERN_THRESHOLDS[m]).length;
      assert.ok(firing <= 0.4 * accepted.length, `${m}: ${firing} of ${accepted.length}`);
    }
  });

  it('photos the gates refused are refused with a reason a person can act on', () => {
    const reasons = new Set(rows.filter((row) => row.outcome !== 'ok').map((row) => row.outcome));
    for (const reason of reasons) {
      assert.ok(
        [
          'no_face',
          'several_faces',
          'face_cut_off',
          'photo_too_small',
          'face_too_small',
          'face_turned',
          'too_dark',
          'overexposed',
          'too_blurry',
          'no_colour',
        ].includes(reason),
        reason,
      );
    }
  });
});
