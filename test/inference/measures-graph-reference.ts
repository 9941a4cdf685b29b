/**
 * A plain, float64 re-implementation of the skin-measures model, written from the feature definitions
 * (docs/measures-graph.md), sharing no code with the graph: the tests compare the model against it.
 * Constants are spelled out here on purpose, so a wrong constant in the builder shows up as a mismatch.
 */

import { CONTRAST_ROWS } from '../../services/inference/measures-graph/contrast-measures.ts';
import {
  closing,
  extreme,
  gaussianMean,
  gaussianZeroPadded,
  keepAwayFrom,
  mean,
  negated,
  opening,
  openingByReconstruction,
  type Plane,
  pixel,
  plane,
  SIZE,
  share,
  weightedMean,
  weightedStd,
} from './reference-planes.ts';
import { belowShine, sidesErythema, skinWeight, srgbToLab, toLinear } from './reference-skin.ts';

/** One patch as the model takes it: planes R, G, B of SIZE×SIZE values in 0..1, row-major. */
export type Patch = Float32Array;

/** 3×3 cross-correlation without padding: the output is two pixels smaller each way. */
function filterValid(p: Plane, kernel: readonly number[]): Plane {
  return plane(p.width - 2, p.height - 2, (x, y) => {
    let sum = 0;
    for (let dy = 0; dy < 3; dy++) {
      for (let dx = 0; dx < 3; dx++) sum += kernel[dy * 3 + dx]! * pixel(p, x + dx, y + dy);
    }
    return sum;
  });
}

/** Mean over a window² neighbourhood, same size, counting only pixels inside the image. */
function localMean(p: Plane, window: number): Plane {
  return stripMean(p, window, window);
}

/** Mean over a width×height neighbourhood, same size, counting only pixels inside the image. */
function stripMean(p: Plane, width: number, height: number): Plane {
  const [w, h] = [(width - 1) / 2, (height - 1) / 2];
  return plane(p.width, p.height, (x, y) => {
    let sum = 0;
    let count = 0;
    for (let v = Math.max(0, y - h); v <= Math.min(p.height - 1, y + h); v++) {
      for (let u = Math.max(0, x - w); u <= Math.min(p.width - 1, x + w); u++) {
        sum += pixel(p, u, v);
        count++;
      }
    }
    return sum / count;
  });
}

/** The mean of each size×size block: the output is `size` times smaller each way. */
function blocks(p: Plane, size: number): Plane {
  return plane(p.width / size, p.height / size, (x, y) => {
    let sum = 0;
    for (let v = 0; v < size; v++) for (let u = 0; u < size; u++) sum += pixel(p, x * size + u, y * size + v);
    return sum / (size * size);
  });
}

/**
 * `p` less its least-squares cubic surface, the 10 terms xⁱ·yʲ with i + j ≤ 3 (every pixel weighing the
 * same): the normal equations, solved by Gaussian elimination with partial pivoting.
 */
function lessCubic(p: Plane): Plane {
  const powers = [0, 1, 2, 3].flatMap((i) => [0, 1, 2, 3].filter((j) => i + j <= 3).map((j) => [i, j]));
  const n = powers.length;
  const terms = (x: number, y: number) => {
    const [u, v] = [x / p.width - 0.5, y / p.height - 0.5];
    return powers.map(([i, j]) => u ** i! * v ** j!);
  };
  const system = Array.from({ length: n }, () => Array<number>(n + 1).fill(0));
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      const t = terms(x, y);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) system[i]![j]! += t[i]! * t[j]!;
        system[i]![n]! += t[i]! * pixel(p, x, y);
      }
    }
  }
  for (let c = 0; c < n; c++) {
    const pivot = system
      .slice(c)
      .reduce((best, row) => (Math.abs(row[c]!) > Math.abs(best[c]!) ? row : best));
    [system[c], system[system.indexOf(pivot)]] = [pivot, system[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const k = system[r]![c]! / pivot[c]!;
      for (let q = c; q <= n; q++) system[r]![q]! -= k * pivot[q]!;
    }
  }
  const coefficients = system.map((row, i) => row[n]! / row[i]!);
  return plane(p.width, p.height, (x, y) =>
    terms(x, y).reduce((rest, t, i) => rest - t * coefficients[i]!, pixel(p, x, y)),
  );
}

/** The weighted mean absolute deviation of `p` from its weighted mean, times √(π/2) (a normal spread's SD). */
function weightedDeviation(p: Plane, w: Plane): number {
  const m = weightedMean(p, w);
  return (
    Math.sqrt(Math.PI / 2) *
    weightedMean(
      plane(p.width, p.height, (x, y) => Math.abs(pixel(p, x, y) - m)),
      w,
    )
  );
}

const BOX_3 = Array<number>(9).fill(1 / 9);
const SECOND_DY = [0, 1, 0, 0, -2, 0, 0, 1, 0];
const SECOND_DX = [0, 0, 0, 1, -2, 1, 0, 0, 0];

/** The plane less: p minus its least-squares fit a + b·x + c·y (x and y are orthogonal on a full grid). */
function lessPlane(p: Plane): Plane {
  const c = (p.width - 1) / 2;
  let [sx, sy, xx, yy] = [0, 0, 0, 0];
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      sx += (x - c) * pixel(p, x, y);
      sy += (y - c) * pixel(p, x, y);
      xx += (x - c) ** 2;
      yy += (y - c) ** 2;
    }
  }
  return plane(p.width, p.height, (x, y) => pixel(p, x, y) - ((x - c) * sx) / xx - ((y - c) * sy) / yy);
}

/** The fifteen features of one patch, by name. */
export function referenceFeatures(
  patch: Patch,
  poreFloor = 0,
  clipLevels: readonly number[] = [Infinity, Infinity, Infinity],
  toneWeights?: Float32Array,
): Record<string, number> {
  const area = SIZE * SIZE;
  const lab = Array.from({ length: area }, (_, i) =>
    srgbToLab(patch[i]!, patch[area + i]!, patch[2 * area + i]!),
  );
  const L = plane(SIZE, SIZE, (x, y) => lab[y * SIZE + x]![0]);
  const A = plane(SIZE, SIZE, (x, y) => lab[y * SIZE + x]![1]);
  const B = plane(SIZE, SIZE, (x, y) => lab[y * SIZE + x]![2]);
  const chroma = plane(SIZE, SIZE, (x, y) => Math.hypot(pixel(A, x, y), pixel(B, x, y)));
  const localL = localMean(L, 9);
  const localA = localMean(A, 9);
  // A dark spot is also darker than its row's and its column's mean over 25 pixels by more than 3.
  const [rowL, columnL] = [stripMean(L, 25, 1), stripMean(L, 1, 25)];
  const blurred = filterValid(L, BOX_3);
  const spots = plane(SIZE, SIZE, (x, y) => {
    const i = y * SIZE + x;
    return localL.data[i]! - L.data[i]! > 6 || A.data[i]! - localA.data[i]! > 6 ? 1 : 0;
  });
  const clear = keepAwayFrom(spots, 9, 4);
  // Tone leaves spots out by degree: 0 at 4 darker or redder than the 9×9 mean, 1 from 8; each pixel
  // weighs 1 less the largest degree within 9×9.
  const spotDegree = plane(SIZE, SIZE, (x, y) => {
    const i = y * SIZE + x;
    const most = Math.max(localL.data[i]! - L.data[i]!, A.data[i]! - localA.data[i]!);
    return Math.min(1, Math.max(0, (most - 4) / 4));
  });
  const nearSpotDegree = extreme(spotDegree, 9, Math.max);
  // …and shine: nothing from 2.2 times the median's linear luminance, fully up to 2.0 (the skin's upper bound);
  // and times the tone weights (the smile's fold left out), 1 when not given.
  const median = [...L.data].sort((a, b) => b - a)[area / 2 - 1]!;
  const keep = (x: number, y: number) =>
    belowShine(pixel(L, x, y), median) * (toneWeights?.[y * SIZE + x] ?? 1);
  const toneClear = plane(SIZE, SIZE, (x, y) => (1 - pixel(nearSpotDegree, x, y)) * keep(x, y));
  // Tone, on 4×4 blocks: the clear skin's L* smoothed (Gaussian σ 2 blocks), less its best cubic surface.
  const toneL = plane(SIZE, SIZE, (x, y) => pixel(L, x, y) * pixel(toneClear, x, y));
  const [blockL, blockShare] = [blocks(toneL, 4), blocks(toneClear, 4)];
  const [toneSum, toneShare] = [gaussianZeroPadded(blockL, 2), gaussianZeroPadded(blockShare, 2)];
  // Each block holds 10⁻³ blocks' worth of the clear skin's mean L* (all of it where no clear skin is near).
  const sum = (p: { data: ArrayLike<number> }) => Array.from(p.data).reduce((a, b) => a + b, 0);
  const clearMean = sum(blockL) / Math.max(sum(blockShare), 256e-6);
  const tone = lessCubic(
    plane(16, 16, (x, y) => (pixel(toneSum, x, y) + 1e-3 * clearMean) / (pixel(toneShare, x, y) + 1e-3)),
  );
  // Texture fills spots and the skin within 13×13 of them with the Gaussian (σ 4) mean of the clear skin
  // (L* where there is none), blended into L* by the Gaussian (σ 3) of the clear share.
  const ones = plane(SIZE, SIZE, () => 1);
  const textureClear = keepAwayFrom(spots, 13, 6);
  const fillShare = gaussianZeroPadded(textureClear, 4);
  const fill = gaussianMean(L, textureClear, 4, 1e-3);
  const kept = gaussianMean(textureClear, ones, 3, 0);
  const filled = plane(SIZE, SIZE, (x, y) => {
    const value = pixel(fillShare, x, y) > 1e-3 ? pixel(fill, x, y) : pixel(L, x, y);
    return pixel(kept, x, y) * pixel(L, x, y) + (1 - pixel(kept, x, y)) * value;
  });
  // Coarse texture: details a 5×5 square does not fit in levelled (opening, then closing, by
  // reconstruction: three 5×5 dilations under the original), a Gaussian of σ 1.5 less its Gaussian
  // (σ 6.5) mean, then the range (closing − opening, 9×9).
  const levelled = negated(openingByReconstruction(negated(openingByReconstruction(filled))));
  const smooth = gaussianMean(levelled, ones, 1.5, 0);
  const wide = gaussianMean(smooth, ones, 6.5, 0);
  const relief = plane(SIZE, SIZE, (x, y) => pixel(smooth, x, y) - pixel(wide, x, y));
  const [closedCoarse, openedCoarse] = [closing(relief, 9), opening(relief, 9)];
  // Pores: the black top-hat by reconstruction (3×3, eight erosions) of L* minus its Gaussian (σ 3) mean
  // over the clear skin.
  const around = gaussianMean(L, clear, 3, 1e-3);
  const detail = plane(SIZE, SIZE, (x, y) => pixel(L, x, y) - pixel(around, x, y));
  const closed = negated(openingByReconstruction(negated(detail), 3, 8));
  const opened = opening(detail, 3);
  // Pits count on level skin only: fully where the detail's Gaussian (σ 2) mean is within 0.5 of 0, not from 1.
  const slope = gaussianMean(detail, ones, 2, 0);
  const levelSkin = plane(
    SIZE,
    SIZE,
    (x, y) => 1 - Math.min(1, Math.max(0, (Math.abs(pixel(slope, x, y)) - 0.5) / 0.5)),
  );
  // Shine for redness's halo: L* more than 6 above the patch's median (the (area/2)-th largest value), fully
  // from 14.
  const shine = plane(SIZE, SIZE, (x, y) => Math.min(1, Math.max(0, (pixel(L, x, y) - median - 6) / 8)));
  // Luminance contrast over the skin, and within each half of the columns (each about its own mean) over
  // the rows from the brows to above the ball of the nose (CONTRAST_ROWS − 2 of the blurred rows).
  const contrastSkin = plane(blurred.width, blurred.height, (x, y) =>
    skinWeight(pixel(blurred, x, y), median),
  );
  const sides = [0, blurred.width / 2].map((from) => {
    const half = (p: Plane) => plane(p.width / 2, CONTRAST_ROWS - 2, (x, y) => pixel(p, from + x, y));
    return { weight: mean(half(contrastSkin)), spread: weightedStd(half(blurred), half(contrastSkin)) };
  });
  // Oiliness: shine from 12 above the median, fully from 20, on L* less its least-squares plane in x and y.
  const level = lessPlane(L);
  const levelMedian = [...level.data].sort((a, b) => b - a)[area / 2 - 1]!;
  const levelShine = plane(SIZE, SIZE, (x, y) =>
    Math.min(1, Math.max(0, (pixel(level, x, y) - levelMedian - 12) / 8)),
  );
  const awayFromSpots = keepAwayFrom(spots, 9, 4);
  // The skin's redness also leaves out the halo of shine: the pixels of a 4×4 block with shine or next
  // to one (its largest degree over the 3×3 blocks around), and the lightest tenth of the patch (L* above
  // the 103rd largest of the pixels at even rows and, of the columns, the even ones of the left half and
  // the odd ones of the right: a set that is its own mirror image).
  const nearShineOf = (shine: Plane) => {
    const blocks = plane(SIZE / 4, SIZE / 4, (x, y) => {
      let most = 0;
      for (let v = 0; v < 4; v++)
        for (let u = 0; u < 4; u++) most = Math.max(most, pixel(shine, 4 * x + u, 4 * y + v));
      return most;
    });
    const around = extreme(blocks, 3, Math.max);
    return plane(SIZE, SIZE, (x, y) => pixel(around, Math.floor(x / 4), Math.floor(y / 4)));
  };
  const nearShine = nearShineOf(shine);
  const lightestOf = (columns: (x: number) => boolean) => {
    const sample = [...L.data].filter((_, i) => {
      const x = i % SIZE;
      return columns(x) && Math.floor(i / SIZE) % 2 === 0 && x % 2 === (x < SIZE / 2 ? 0 : 1);
    });
    return sample.sort((a, b) => b - a)[Math.ceil(sample.length * 0.1) - 1]!;
  };
  const lightest = lightestOf(() => true);
  // Lines: valleys down the patch at σ 2, less the curvature across and the broad (σ 4) valley down.
  const [fine, broad] = [gaussianMean(L, ones, 2, 0), gaussianMean(L, ones, 4, 0)];
  const [down, across] = [filterValid(fine, SECOND_DY), filterValid(fine, SECOND_DX)];
  const broadDown = filterValid(broad, SECOND_DY);
  const lineMap = plane(down.width, down.height, (x, y) =>
    Math.max(0, pixel(down, x, y) - Math.abs(pixel(across, x, y)) - Math.max(0, pixel(broadDown, x, y))),
  );
  // Erythema index: 100·log10(R/G) in linear light, channels floored at 1e-4.
  const erythema = plane(SIZE, SIZE, (x, y) => {
    const i = y * SIZE + x;
    const r = Math.max(1e-4, toLinear(patch[i]!));
    const g = Math.max(1e-4, toLinear(patch[area + i]!));
    return 100 * Math.log10(r / g);
  });
  /** The mean erythema index over the columns given, away from spots, shine's halo, the lightest and clipping. */
  const skinRedness = (columns: (x: number) => boolean, near: Plane, lightestL: number) =>
    weightedMean(
      erythema,
      plane(
        SIZE,
        SIZE,
        (x, y) =>
          (columns(x) ? 1 : 0) *
          pixel(awayFromSpots, x, y) *
          (1 - pixel(near, x, y)) *
          (pixel(L, x, y) <= lightestL ? 1 : 0) *
          // Nor pixels clipped in the photo: any channel at its clip level.
          ([0, 1, 2].some((c) => patch[c * area + y * SIZE + x]! >= clipLevels[c]!) ? 0 : 1),
      ),
    );
  // The same of B/G: with the erythema index, the spread of the patch's colour whatever its lightness.
  const blueIndex = plane(SIZE, SIZE, (x, y) => {
    const i = y * SIZE + x;
    const b = Math.max(1e-4, toLinear(patch[2 * area + i]!));
    const g = Math.max(1e-4, toLinear(patch[area + i]!));
    return 100 * Math.log10(b / g);
  });

  return {
    l_mean: mean(L),
    l_std: weightedDeviation(tone, blockShare),
    a_mean: mean(A),
    b_mean: mean(B),
    chroma_mean: mean(chroma),
    red_spot_frac: share(A, (a, i) => a - localA.data[i]! > 6),
    dark_spot_frac: share(
      L,
      (l, i) =>
        localL.data[i]! - l > 6 &&
        Math.min(rowL.data[i]!, columnL.data[i]!) - l > 3 &&
        !(A.data[i]! - localA.data[i]! > 3),
    ),
    // Pits are read 6 pixels (2σ of the surround) or more inside the patch's edge, beyond the floor.
    pit_depth: weightedMean(
      plane(
        SIZE - 12,
        SIZE - 12,
        (x, y) =>
          Math.max(0, Math.min(pixel(closed, x + 6, y + 6) - pixel(detail, x + 6, y + 6), 4) - poreFloor) *
          pixel(levelSkin, x + 6, y + 6),
      ),
      plane(SIZE - 12, SIZE - 12, (x, y) => pixel(clear, x + 6, y + 6)),
    ),
    // Grain: the white top-hat (3×3) of the same detail, over the same pixels.
    grain_height: weightedMean(
      plane(SIZE - 12, SIZE - 12, (x, y) =>
        Math.min(pixel(detail, x + 6, y + 6) - pixel(opened, x + 6, y + 6), 4),
      ),
      plane(SIZE - 12, SIZE - 12, (x, y) => pixel(clear, x + 6, y + 6)),
    ),
    coarse_energy: mean(plane(SIZE, SIZE, (x, y) => pixel(closedCoarse, x, y) - pixel(openedCoarse, x, y))),
    line_energy: mean(lineMap),
    specular_frac: mean(levelShine),
    red_frac: share(A, (a) => a > 15),
    // Skin only (addSkinWeight): linear luminance 0.5–2.2 of the median's, ramps of 0.2 inside each bound.
    l_contrast: weightedStd(blurred, contrastSkin),
    // The same within each half of the columns, each about its own mean, pooled by the skin each holds.
    l_contrast_sides: Math.sqrt(
      sides.reduce((sum, { weight, spread }) => sum + weight * spread ** 2, 0) /
        (sides.reduce((sum, { weight }) => sum + weight, 0) + 1e-6),
    ),
    erythema_skin: skinRedness(() => true, nearShine, lightest),
    // The same on each half of the columns, with the half's own shine (against its own median) and
    // lightest tenth.
    ...Object.fromEntries(
      (['erythema_skin_first_half', 'erythema_skin_second_half'] as const).map((name, side) => {
        const inHalf = (x: number) => Math.floor(x / (SIZE / 2)) === side;
        const values = [...L.data].filter((_, i) => inHalf(i % SIZE)).sort((a, b) => b - a);
        const halfMedian = values[values.length / 2 - 1]!;
        const halfShine = plane(SIZE, SIZE, (x, y) =>
          Math.min(1, Math.max(0, (pixel(L, x, y) - halfMedian - 6) / 8)),
        );
        return [name, skinRedness(inHalf, nearShineOf(halfShine), lightestOf(inHalf))];
      }),
    ),
    // The middle of the face's, for redness's baseline: its skin by lightness, on each half (reference-skin.ts).
    erythema_skin_sides: sidesErythema({
      L,
      erythema,
      redSpots: plane(SIZE, SIZE, (x, y) => (pixel(A, x, y) - pixel(localA, x, y) > 6 ? 1 : 0)),
      spots,
      clipped: (x, y) => [0, 1, 2].some((c) => patch[c * area + y * SIZE + x]! >= clipLevels[c]!),
      nearShineOf,
      lightestOf,
    }),
    l_median: median,
    l_contrast_median: [...L.data.slice(0, CONTRAST_ROWS * SIZE)].sort((a, b) => b - a)[
      (CONTRAST_ROWS * SIZE) / 2 - 1
    ]!,
    // The eye's: the 70th percentile of the first 33 rows, the 2nd of the rows from the 16th on.
    l_light: [...L.data.slice(0, 33 * SIZE)].sort((a, b) => b - a)[Math.round(0.3 * 33 * SIZE) - 1]!,
    l_dark: [...L.data.slice(15 * SIZE)].sort((a, b) => a - b)[Math.round(0.02 * (SIZE - 15) * SIZE) - 1]!,
    // Over the skin too, judged on L* at full size, none of it lighter than 1.2 times the median (shine).
    chroma_spread: Math.hypot(
      weightedStd(
        erythema,
        plane(SIZE, SIZE, (x, y) => skinWeight(pixel(L, x, y), median, 1.2)),
      ),
      weightedStd(
        blueIndex,
        plane(SIZE, SIZE, (x, y) => skinWeight(pixel(L, x, y), median, 1.2)),
      ),
    ),
  };
}
