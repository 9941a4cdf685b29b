/**
 * How much each pixel of each region counts in uneven tone (the measures graph's TONE_WEIGHTS_NAME input).
 * A smile folds the cheek along a line from the nose's wing to the mouth's corner: the fold is a dark crease
 * and the raised cheek beside it a lit round, bands that the tone's cubic surface cannot follow and that
 * read as patches. On the reference faces most of what moved one person's uneven tone from photo to photo
 * was such a fold across the cheek's lower inner corner (docs/inference.md, "Uneven tone: the smile's fold
 * left out"). So tone leaves out the cheek's pixels near that line, on the ear's side of it as well (the
 * fold runs outside the straight line, the raised cheek beside it): nothing within FOLD_FROM eye distances,
 * fully from FOLD_FROM + FOLD_RAMP. The cheeks stay where they are, and every other measure reads them whole.
 */
import type { Point } from './face.ts';
import type { Landmarks } from './landmarks.ts';
import { faceFrame, PATCH, REGIONS, type Region, regionLayout } from './regions.ts';

/** Pixels closer to the line nose's wing → mouth's corner than this, in eye distances, do not count. */
export const FOLD_FROM = 0.16;
/** From FOLD_FROM the weight rises to 1 over this many eye distances. */
export const FOLD_RAMP = 0.04;

/** Each cheek with the landmarks of its nose's wing and its mouth's corner. */
const FOLDS: readonly (readonly [Region, number, number])[] = [
  ['right_cheek', 31, 48],
  ['left_cheek', 35, 54],
];

const PLANE = PATCH * PATCH;

/**
 * The tone weights of every region, float32 [REGIONS.length, 1, PATCH, PATCH] into `out`: 1 but in the
 * cheeks near their fold's line. A pixel's place is its patch's sampling (regions.ts): the region's centre
 * plus its offsets along the eye line and down the face, at the centre of the pixel.
 */
export function toneWeights(
  points: Landmarks,
  out: Float32Array = new Float32Array(REGIONS.length * PLANE),
): Float32Array {
  out.fill(1);
  const { u, v, d } = faceFrame(points);
  const layout = regionLayout(points);
  for (const [region, wing, corner] of FOLDS) {
    const { centre, w, h } = layout[region];
    const [a, b] = [points[wing]!, points[corner]!];
    // The line's unit normal, turned toward the ear (away from the nose: along −u for the right cheek).
    const length = Math.hypot(b[0] - a[0], b[1] - a[1]) || 1;
    let normal: Point = [-(b[1] - a[1]) / length, (b[0] - a[0]) / length];
    const ear = region === 'right_cheek' ? -1 : 1;
    if (ear * (normal[0] * u[0] + normal[1] * u[1]) < 0) normal = [-normal[0], -normal[1]];
    // Distance from the line, in eye distances, at the patch's corner (x = y = 0) and per pixel along x and y.
    const step = (along: Point, size: number) =>
      (size * (along[0] * normal[0] + along[1] * normal[1])) / PATCH;
    const [dx, dy] = [step(u, w), step(v, h)];
    const origin =
      ((centre[0] - a[0]) * normal[0] + (centre[1] - a[1]) * normal[1]) / d + (0.5 - PATCH / 2) * (dx + dy);
    const plane = out.subarray(REGIONS.indexOf(region) * PLANE, (REGIONS.indexOf(region) + 1) * PLANE);
    for (let y = 0; y < PATCH; y++) {
      for (let x = 0; x < PATCH; x++) {
        const s = origin + x * dx + y * dy;
        plane[y * PATCH + x] = Math.min(1, Math.max(0, (s - FOLD_FROM) / FOLD_RAMP));
      }
    }
  }
  return out;
}
