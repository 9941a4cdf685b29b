/**
 * Glasses frames out of the regions where they read as skin. A frame's temple or rim crossing the
 * crow's-feet, or its lower rim at the top of the cheeks, is a band far darker than skin: the crow's-feet
 * read it as lines (painted frames on the package faces moved wrinkles by up to 39 points) and the cheeks'
 * relief as bumps and hollows (texture by up to 63: docs/inference.md, "Glasses"). Here, before the colour
 * correction, each such region's pixels far darker than its own skin (FRAME_DARKNESS of its 75th
 * percentile, in linear green light) that join into a band reaching across most of the patch (FRAME_SPAN)
 * are taken out, with a margin for the frame's soft edge, and filled in from the skin around them. Judged
 * against the region's own skin, the choice is the same for a light or a dark skin; a spot, a pore or a
 * crease is neither that dark nor that long. The under-eyes and the cheeks' colour are not treated (tried:
 * they tip dark circles under a cast and redness's calibration; see the docs).
 */
import type { Landmarks } from './landmarks.ts';
import { PATCH, REGIONS, type Region, regionLayout, SAMPLES_PER_EYE_DISTANCE } from './regions.ts';

/** Regions frames are taken out of. */
export const FRAME_REGIONS: readonly Region[] = [
  'right_crows_feet',
  'left_crows_feet',
  'right_cheek_relief',
  'left_cheek_relief',
];

/**
 * A frame pixel is darker, in linear green, than FRAME_DARKNESS of its region's skin (the 75th percentile,
 * which a frame across half the patch does not move).
 */
const FRAME_DARKNESS = 0.35;
/** A frame's dark pixels join into a band reaching across this fraction of the patch, along or down it. */
const FRAME_SPAN = 0.6;
/**
 * Samples around a frame also left out (its soft, anti-aliased edge and the sampling's blur): in samples
 * of the region (regions.ts), not patch pixels, as a short region's few rows are enlarged most.
 */
const MARGIN = 2;
/** Rounds of the fill (each pixel left out becomes the mean of its neighbours). */
const FILL_ROUNDS = 20;

const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

const PLANE = PATCH * PATCH;
const DARK = new Uint8Array(PLANE);
const LABEL = new Int32Array(PLANE);
const OUT = new Uint8Array(PLANE);
const STACK = new Int32Array(PLANE);
const GREEN = new Float64Array(PLANE);
/** The previous round of the fill, and a 0 after it for the neighbours outside the patch. */
const PREVIOUS = new Float32Array(PLANE + 1);
const NEIGHBOURS = new Int32Array(4 * PLANE);
const COUNTS = new Uint8Array(PLANE);
const KEPT = new Float32Array(PLANE);
const ALONG = new Uint8Array(PLANE);
/** The pixels marked in OUT, in order, and how many. */
const MARKED = new Int32Array(PLANE);

/**
 * Takes glasses frames out of the frame regions of a batch of patches (regions.ts layout), in place.
 * Returns the share of those regions' pixels filled in.
 */
export function removeFrames(patches: Float32Array, points: Landmarks): number {
  const layout = regionLayout(points);
  let filled = 0;
  for (const region of FRAME_REGIONS) {
    const { w, h } = layout[region];
    // Patch pixels per sample, across and down.
    const across = PATCH / Math.max(2, Math.round(w * SAMPLES_PER_EYE_DISTANCE));
    const down = PATCH / Math.max(2, Math.round(h * SAMPLES_PER_EYE_DISTANCE));
    const margins = [Math.round(MARGIN * across), Math.round(MARGIN * down)] as const;
    filled += removeFrame(patches, REGIONS.indexOf(region) * 3 * PLANE, ...margins);
  }
  return filled / (FRAME_REGIONS.length * PLANE);
}

/** One patch (its R plane at `offset`): how many pixels it filled in. */
function removeFrame(patches: Float32Array, offset: number, marginX: number, marginY: number): number {
  const green = patches.subarray(offset + PLANE, offset + 2 * PLANE);
  for (let i = 0; i < PLANE; i++) GREEN[i] = toLinear(green[i]!);
  // The percentile of the sRGB values, then in linear light: the same pixel's value (the curve rises).
  KEPT.set(green);
  const skin = toLinear(KEPT.sort()[Math.floor(0.75 * (PLANE - 1))]!);
  for (let i = 0; i < PLANE; i++) DARK[i] = GREEN[i]! < FRAME_DARKNESS * skin ? 1 : 0;
  if (!markBands()) return 0;
  const count = widen(marginX, marginY);
  fill(patches, offset);
  return count;
}

/**
 * Marks in OUT the dark pixels of every 4-connected group reaching across FRAME_SPAN of the patch; true
 * when there is one.
 */
function markBands(): boolean {
  LABEL.fill(0);
  OUT.fill(0);
  let found = false;
  let label = 0;
  for (let start = 0; start < PLANE; start++) {
    if (!DARK[start] || LABEL[start]) continue;
    label++;
    let top = 0;
    STACK[top++] = start;
    LABEL[start] = label;
    let [minX, maxX, minY, maxY] = [PATCH, -1, PATCH, -1];
    while (top > 0) {
      const at = STACK[--top]!;
      const x = at % PATCH;
      const y = (at - x) / PATCH;
      if (x > 0) top = visit(at - 1, label, top);
      if (x < PATCH - 1) top = visit(at + 1, label, top);
      if (y > 0) top = visit(at - PATCH, label, top);
      if (y < PATCH - 1) top = visit(at + PATCH, label, top);
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
    const wide = maxX - minX + 1 >= FRAME_SPAN * PATCH || maxY - minY + 1 >= FRAME_SPAN * PATCH;
    if (!wide) continue;
    found = true;
    for (let i = 0; i < PLANE; i++) if (LABEL[i] === label) OUT[i] = 1;
  }
  return found;
}

/** Pushes a dark pixel not yet labelled onto STACK with `label`; returns the stack's new top. */
function visit(at: number, label: number, top: number): number {
  if (!DARK[at] || LABEL[at]) return top;
  LABEL[at] = label;
  STACK[top] = at;
  return top + 1;
}

/**
 * OUT grown by a rectangle of marginX × marginY pixels each side (along the rows, then down the columns:
 * the same as the rectangle at once); returns how many pixels it marks.
 */
function widen(marginX: number, marginY: number): number {
  for (let y = 0; y < PATCH; y++) {
    for (let x = 0; x < PATCH; x++) {
      let hit = 0;
      for (let xx = Math.max(0, x - marginX); xx <= Math.min(PATCH - 1, x + marginX) && !hit; xx++) {
        hit = OUT[y * PATCH + xx]!;
      }
      ALONG[y * PATCH + x] = hit;
    }
  }
  let count = 0;
  for (let y = 0; y < PATCH; y++) {
    for (let x = 0; x < PATCH; x++) {
      let hit = 0;
      for (let yy = Math.max(0, y - marginY); yy <= Math.min(PATCH - 1, y + marginY) && !hit; yy++) {
        hit = ALONG[yy * PATCH + x]!;
      }
      OUT[y * PATCH + x] = hit;
      count += hit;
    }
  }
  return count;
}

/**
 * The pixels marked in OUT, in each channel, filled in from the skin around them: first the median of the
 * skin left, then FILL_ROUNDS rounds in which each becomes the mean of its four neighbours (a smooth
 * surface spanning the gap, as the skin would be).
 */
function fill(patches: Float32Array, offset: number): void {
  let marked = 0;
  for (let i = 0; i < PLANE; i++) {
    if (!OUT[i]) continue;
    const x = i % PATCH;
    // A neighbour outside the patch reads PREVIOUS[PLANE], which holds 0, and does not count.
    NEIGHBOURS[4 * marked] = x > 0 ? i - 1 : PLANE;
    NEIGHBOURS[4 * marked + 1] = x < PATCH - 1 ? i + 1 : PLANE;
    NEIGHBOURS[4 * marked + 2] = i >= PATCH ? i - PATCH : PLANE;
    NEIGHBOURS[4 * marked + 3] = i < PLANE - PATCH ? i + PATCH : PLANE;
    COUNTS[marked] =
      (x > 0 ? 1 : 0) + (x < PATCH - 1 ? 1 : 0) + (i >= PATCH ? 1 : 0) + (i < PLANE - PATCH ? 1 : 0);
    MARKED[marked++] = i;
  }
  for (let c = 0; c < 3; c++) {
    const plane = patches.subarray(offset + c * PLANE, offset + (c + 1) * PLANE);
    let kept = 0;
    for (let i = 0; i < PLANE; i++) if (!OUT[i]) KEPT[kept++] = plane[i]!;
    if (kept === 0) continue;
    const base = KEPT.subarray(0, kept).sort()[kept >> 1]!;
    for (let k = 0; k < marked; k++) plane[MARKED[k]!] = base;
    // Every pixel from the previous round's neighbours (so a mirrored patch is filled as the mirror image),
    // each pair of opposite neighbours added first (addition is commutative: the same sums mirrored).
    for (let round = 0; round < FILL_ROUNDS; round++) {
      PREVIOUS.set(plane);
      for (let k = 0; k < marked; k++) {
        const n = 4 * k;
        const across = PREVIOUS[NEIGHBOURS[n]!]! + PREVIOUS[NEIGHBOURS[n + 1]!]!;
        const down = PREVIOUS[NEIGHBOURS[n + 2]!]! + PREVIOUS[NEIGHBOURS[n + 3]!]!;
        plane[MARKED[k]!] = (across + down) / COUNTS[k]!;
      }
    }
  }
}
