/**
 * Redness is judged against the person's own skin: the baseline (forehead, nose and the middle of the face)
 * must read the skin's redness, not the brows', eyes' or nostrils'. The middle of the face, brows to the
 * nose's base, holds all three; read with its brows, eyes and nostrils as spots (their 9×9 rim) and shine's
 * halo judged on a median they lowered, it read 0.2–45 % of its pixels on the reference photos, often the
 * brows where they run along its edge (docs/inference.md, "Redness's baseline reads the middle of the
 * face's skin").
 */
import assert from 'node:assert/strict';
import { Measurer } from '../../services/inference/measurer.ts';
import { PATCH_SIZE } from '../../services/inference/measures-graph/features.ts';
import { REGIONS } from '../../services/inference/regions.ts';
import { FEATURES_READ, poreFloor, rawMeasures } from '../../services/inference/scoring.ts';
import { middleOfFace, SKIN, uniform } from './measures-graph-patches.ts';

describe('redness baseline', () => {
  let measurer: Measurer;

  before(async () => {
    measurer = await Measurer.load(FEATURES_READ);
  });
  after(() => measurer.release());

  /** Raw redness of a face whose every region is SKIN but the middle of the face, `face`. */
  async function redness(face: Float32Array): Promise<number> {
    const values = 3 * PATCH_SIZE * PATCH_SIZE;
    const patches = new Float32Array(REGIONS.length * values);
    for (const [r, region] of REGIONS.entries())
      patches.set(region === 'face' ? face : uniform(SKIN), r * values);
    return rawMeasures(await measurer.measure(patches, poreFloor)).redness;
  }

  it('reads the middle of the face on its skin: brows, eyes and nostrils do not move it', async () => {
    // Cheeks of the same skin as the baseline: no redness above it, whatever the brows' colour.
    assert.ok(Math.abs(await redness(uniform(SKIN))) < 0.01);
    // Brows along the region's top edge, eyes and nostrils, a third of it; its skin lit more along the
    // nose's bridge. The old baseline read the brows' interior (erythema index about 7 against the skin's
    // 24.6): redness 0.85.
    const withFeatures = await redness(middleOfFace());
    assert.ok(Math.abs(withFeatures) < 0.05, `redness ${withFeatures}`);
  });
});
