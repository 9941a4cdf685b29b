/**
 * The measurer runs the skin-measures graph cut down per group of regions: each region must get exactly
 * the whole graph's values for the features read from it, and nothing for the others.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { InferenceSession } from 'onnxruntime-node';
import { baselineGains, clipLevels, normaliseColour } from '../../services/inference/colour-constancy.ts';
import { decodeImage } from '../../services/inference/decode.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../services/inference/landmarks.ts';
import { MEASURES_SESSION_OPTIONS, Measurer } from '../../services/inference/measurer.ts';
import { MEASURES_MODEL_PATH } from '../../services/inference/measures-graph/build.ts';
import { FEATURES, OUTPUT_NAME, PATCH_SIZE } from '../../services/inference/measures-graph/features.ts';
import { mainFace } from '../../services/inference/quality.ts';
import { REGIONS, regionPatches } from '../../services/inference/regions.ts';
import {
  FEATURES_READ,
  MEASURED_TOGETHER,
  poreFloor,
  rawMeasures,
} from '../../services/inference/scoring.ts';
import { toneWeights } from '../../services/inference/tone-weights.ts';
import { MEASURES } from '../../services/shared/measures.ts';
import { graphFeeds } from './measures-graph-run.ts';
import { singleFace } from './support/photos.ts';
import { countRuns } from './support/session-runs.ts';

describe('measurer', () => {
  let measurer: Measurer;
  let patches: Float32Array;
  let levels: number[];
  let weights: Float32Array;

  before(async () => {
    const image = await decodeImage(await singleFace('b'));
    const detector = await FaceDetector.load();
    const landmarker = await FaceLandmarker.load();
    const landmarks = await landmarker.locate(image, mainFace(await detector.detect(image))!);
    const sampled = regionPatches(image, landmarks);
    weights = toneWeights(landmarks);
    const gains = baselineGains(sampled);
    levels = clipLevels(gains);
    patches = normaliseColour(sampled, sampled, gains);
    measurer = await Measurer.load(FEATURES_READ);
    await Promise.all([detector.release(), landmarker.release()]);
  });
  after(() => measurer.release());

  it('reads each region for the features scoring reads from it, and for no other', async () => {
    const rows = await measurer.measure(patches, poreFloor, levels, weights);
    assert.equal(rows.length, REGIONS.length);
    // The cheeks' pits are measured beyond the floor their photo's grain gives, read from the forehead first.
    const floor = poreFloor(rows);
    assert.ok(floor > 0, `pore floor ${floor}`);
    assert.deepEqual(
      REGIONS.filter((_, r) => FEATURES_READ[r]!.includes('grain_height')),
      ['forehead'],
    );
    const whole = await InferenceSession.create(readFileSync(MEASURES_MODEL_PATH), MEASURES_SESSION_OPTIONS);
    const feeds = graphFeeds(patches, REGIONS.length, floor, levels, weights);
    const out = (await whole.run(feeds))[OUTPUT_NAME]!;
    await whole.release();
    const values = out.data as Float32Array;
    // The texture filters run on the cheeks sampled for relief only; the median L* is read under the eyes
    // (dark circles); the middle of the face reads the median of the rows its contrast reads (dullness's
    // contrast relative to its lightness, skin-measures-41.0.0).
    assert.deepEqual(
      REGIONS.filter((_, r) => FEATURES_READ[r]!.includes('coarse_energy')),
      ['right_cheek_relief', 'left_cheek_relief'],
    );
    assert.deepEqual(
      REGIONS.filter((_, r) => FEATURES_READ[r]!.includes('l_median')),
      ['right_under_eye', 'left_under_eye'],
    );
    assert.deepEqual(
      REGIONS.filter((_, r) => FEATURES_READ[r]!.includes('l_contrast_median')),
      ['face'],
    );
    for (const [r, region] of REGIONS.entries()) {
      FEATURES.forEach((name, column) => {
        const got = rows[r]![name];
        if (!FEATURES_READ[r]!.includes(name)) {
          assert.ok(Number.isNaN(got), `${region} ${name} is not read, yet measured: ${got}`);
          return;
        }
        const expected = values[r * FEATURES.length + column]!;
        assert.ok(
          Math.abs(got - expected) <= 1e-5 * Math.max(1, Math.abs(expected)),
          `${region} ${name}: ${got}, the whole graph ${expected}`,
        );
      });
    }
    const raw = rawMeasures(rows);
    for (const measure of MEASURES) assert.ok(Number.isFinite(raw[measure]), measure);
  });

  it('measures patches apart in the batch but read for the same features together, each in its own row', async () => {
    // Patches 0 and 2 share a group (copied out of the batch), patch 1 has its own, patch 3 none.
    const needs = [['l_mean', 'l_std'], ['l_median'], ['l_std', 'l_mean'], []] as const;
    const spread = await Measurer.load(needs);
    const four = patches.subarray(0, 4 * 3 * PATCH_SIZE * PATCH_SIZE);
    const rows = await spread.measure(four);
    await spread.release();
    const alone = await Measurer.load([['l_mean', 'l_std', 'l_median']]);
    for (const [p, names] of needs.entries()) {
      const [row] = await alone.measure(
        four.subarray(p * 3 * PATCH_SIZE * PATCH_SIZE, (p + 1) * 3 * PATCH_SIZE * PATCH_SIZE),
      );
      for (const name of FEATURES) {
        if (!(names as readonly string[]).includes(name)) {
          assert.ok(Number.isNaN(rows[p]![name]), `patch ${p} ${name}`);
          continue;
        }
        assert.ok(
          Math.abs(rows[p]![name] - row![name]) <= 1e-5 * Math.max(1, Math.abs(row![name])),
          `patch ${p} ${name}`,
        );
      }
    }
    await alone.release();
  });

  it('runs the groups that do not read the pore floor together, then those that do: two runs, same values', async () => {
    // Each group alone (its patches only, through its own cut graph), as the measurer ran them before.
    const full = await measurer.measure(patches, poreFloor, levels);
    const floor = poreFloor(full);
    const groups = new Map<string, number[]>();
    FEATURES_READ.forEach((names, r) => {
      if (names.length === 0) return;
      const key = [...names].sort().join(',');
      groups.set(key, [...(groups.get(key) ?? []), r]);
    });
    assert.ok(groups.size >= 8, `${groups.size} groups`);
    const { runs } = await countRuns(() => measurer.measure(patches, poreFloor, levels));
    assert.equal(runs, 2);
    for (const regions of groups.values()) {
      const alone = await Measurer.load(FEATURES_READ.map((names, r) => (regions.includes(r) ? names : [])));
      const rows = await alone.measure(patches, () => floor, levels);
      await alone.release();
      for (const r of regions) {
        for (const name of FEATURES_READ[r]!)
          assert.equal(full[r]![name], rows[r]![name], `${REGIONS[r]} ${name}, its group alone`);
      }
    }
  });

  it('refuses a batch that is not one patch per region', async () => {
    const one = new Float32Array(3 * PATCH_SIZE * PATCH_SIZE).fill(0.5);
    await assert.rejects(measurer.measure(one), /expected 14 patches, got 1/);
  });

  it("reads the cheeks' tone with their tone weights, and refuses weights that are not one plane per region", async () => {
    const weighted = await measurer.measure(patches, poreFloor, levels, weights);
    const whole = await measurer.measure(patches, poreFloor, levels);
    const cheek = REGIONS.indexOf('right_cheek');
    assert.ok(weights.subarray(cheek * PATCH_SIZE ** 2, (cheek + 1) * PATCH_SIZE ** 2).includes(0));
    assert.notEqual(weighted[cheek]!.l_std, whole[cheek]!.l_std);
    assert.equal(weighted[cheek]!.dark_spot_frac, whole[cheek]!.dark_spot_frac);
    await assert.rejects(
      measurer.measure(patches, poreFloor, levels, new Float32Array(PATCH_SIZE * PATCH_SIZE)),
      /^Error: expected the tone weights of 14 patches, got 1$/,
    );
  });

  it('measures the cheeks as one group of two, each read for its own half: the same values, NaN for the other half', async () => {
    const cheeks = [REGIONS.indexOf('right_cheek'), REGIONS.indexOf('left_cheek')];
    assert.deepEqual(MEASURED_TOGETHER, [cheeks]);
    // Their features differ only by the half: apart, each would be a group of one.
    const [right, left] = cheeks.map((r) => FEATURES_READ[r]!);
    assert.ok(right!.includes('erythema_skin_second_half') && !right!.includes('erythema_skin_first_half'));
    assert.ok(left!.includes('erythema_skin_first_half') && !left!.includes('erythema_skin_second_half'));
    const together = await Measurer.load(FEATURES_READ, MEASURED_TOGETHER);
    const run = await countRuns(() => together.measure(patches, poreFloor, levels, weights)).finally(() =>
      together.release(),
    );
    const rows = run.value;
    // The batches each run is fed: the floor's run, the two cheeks and nothing else, in one batch of two.
    const batches = run.feeds.map((feeds) =>
      Object.entries(feeds)
        .filter(([name, tensor]) => name.endsWith('patches') && tensor.dims.length === 4)
        .map(([, tensor]) => tensor.dims[0]!),
    );
    assert.deepEqual(batches[1], [2]);
    const apart = await measurer.measure(patches, poreFloor, levels, weights);
    for (const [r, region] of REGIONS.entries()) {
      for (const name of FEATURES) {
        if (FEATURES_READ[r]!.includes(name))
          assert.equal(rows[r]![name], apart[r]![name], `${region} ${name}`);
        else assert.ok(Number.isNaN(rows[r]![name]), `${region} ${name} is not read, yet given`);
      }
    }
  });
});
