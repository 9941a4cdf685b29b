/**
 * The reference implementation's colour (sRGB to linear light and CIELAB), skin by lightness
 * (addSkinWeight) and the middle of the face's skin redness (`erythema_skin_sides`, erythema-halves.ts
 * addSidesErythema), written from docs/measures-graph.md.
 */
import { keepAwayFrom, type Plane, pixel, plane, SIZE } from './reference-planes.ts';

export function toLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function labF(t: number): number {
  return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
}

/** CIELAB of one sRGB colour, D65 white. */
export function srgbToLab(r: number, g: number, b: number): [number, number, number] {
  const [R, G, B] = [toLinear(r), toLinear(g), toLinear(b)];
  const X = 0.4124564 * R + 0.3575761 * G + 0.1804375 * B;
  const Y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const Z = 0.0193339 * R + 0.119192 * G + 0.9503041 * B;
  const [fx, fy, fz] = [labF(X / 0.95047), labF(Y / 1.0), labF(Z / 1.08883)];
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/**
 * A pixel's share of skin by its linear luminance against the patch median's (L* in, addSkinWeight), up to
 * `lightTo` of it (the colour spread's skin stops at 1.2).
 */
export function skinWeight(l: number, median: number, lightTo = 2.2): number {
  const y = ((l + 16) / (median + 16)) ** 3;
  const clip = (t: number) => Math.min(1, Math.max(0, t));
  return clip((y - 0.5) / 0.2) * clip((lightTo - y) / 0.2);
}

/** skinWeight without its dark bound: what tone keeps of a pixel by its light alone. */
export function belowShine(l: number, median: number): number {
  const y = ((l + 16) / (median + 16)) ** 3;
  return Math.min(1, Math.max(0, (2.2 - y) / 0.2));
}

export interface SidesInputs {
  readonly L: Plane;
  readonly erythema: Plane;
  /** 1 where a pixel is redder (a*) than its 9×9 mean by more than 6. */
  readonly redSpots: Plane;
  /** 1 where a pixel is a spot: redder, or darker (L*) than its 9×9 mean by more than 6. */
  readonly spots: Plane;
  /** Whether the pixel at x, y is clipped in the photo. */
  readonly clipped: (x: number, y: number) => boolean;
  /** Near shine (the 4×4 blocks with shine and those around them) of a shine degree plane. */
  readonly nearShineOf: (shine: Plane) => Plane;
  /** The lightest tenth's bound over the sample's columns that pass `columns`. */
  readonly lightestOf: (columns: (x: number) => boolean) => number;
}

/**
 * On each half of the columns: its median L*, the skin level (the mean L* of the half's pixels weighted by
 * skinWeight against that median), each pixel weighed by skinWeight against the level, away from red
 * spots (9×9) and from any spot (3×3), shine's halo (6 above the level, fully from 14), the half's lightest tenth and clipping; the
 * halves' means, each weighing by its share of the patch's pixels up to 0.02.
 */
export function sidesErythema({
  L,
  erythema,
  redSpots,
  spots,
  clipped,
  nearShineOf,
  lightestOf,
}: SidesInputs): number {
  const [awayFromRed, awayFromSpots] = [keepAwayFrom(redSpots, 9, 4), keepAwayFrom(spots, 3, 1)];
  let [sum, total] = [0, 0];
  for (const side of [0, 1]) {
    const inHalf = (x: number) => Math.floor(x / (SIZE / 2)) === side;
    const values = [...L.data].filter((_, i) => inHalf(i % SIZE));
    const median = [...values].sort((a, b) => b - a)[values.length / 2 - 1]!;
    let [lSum, lWeight] = [0, 0];
    L.data.forEach((l, i) => {
      if (!inHalf(i % SIZE)) return;
      lSum += l * skinWeight(l, median);
      lWeight += skinWeight(l, median);
    });
    const level = lSum / (lWeight + SIZE * SIZE * 1e-6);
    const near = nearShineOf(
      plane(SIZE, SIZE, (x, y) => Math.min(1, Math.max(0, (pixel(L, x, y) - level - 6) / 8))),
    );
    const lightest = lightestOf(inHalf);
    const weight = plane(SIZE, SIZE, (x, y) =>
      inHalf(x) && !clipped(x, y) && pixel(L, x, y) <= lightest
        ? pixel(awayFromRed, x, y) *
          pixel(awayFromSpots, x, y) *
          (1 - pixel(near, x, y)) *
          skinWeight(pixel(L, x, y), level)
        : 0,
    );
    const share = weight.data.reduce((a, w) => a + w, 0) / (SIZE * SIZE);
    const halfSum = weight.data.reduce((a, w, i) => a + w * erythema.data[i]!, 0) / (SIZE * SIZE);
    const weighs = Math.min(share, 0.02);
    sum += (halfSum / Math.max(share, 1e-6)) * weighs;
    total += weighs;
  }
  return sum / Math.max(total, 1e-6);
}
