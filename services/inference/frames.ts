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
import { kthSmallest, toLinear, toSrgb } from './pixel-math.ts';
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

/**
 * How far from the threshold, in sRGB, a value is compared in linear light after all: the two curves'
 * rounding is many orders smaller, so beyond it the comparison in sRGB gives the same answer.
 */
const NEAR = 1e-6;

const PLANE = PATCH * PATCH;
const DARK = new Uint8Array(PLANE);
const LABEL = new Int32Array(PLANE);
const OUT = new Uint8Array(PLANE);
const STACK = new Int32Array(PLANE);
/**
 * The fill's rounds, read from one and written to the other in turn: the three channels of each pixel
 * together, and after them a pixel of 0s for the neighbours outside the patch.
 */
const FILLING = [new Float32Array(3 * (PLANE + 1)), new Float32Array(3 * (PLANE + 1))] as const;
const NEIGHBOURS = new Int32Array(4 * PLANE);
const COUNTS = new Uint8Array(PLANE);
const KEPT = new Float32Array(PLANE);
const ALONG = new Uint8Array(PLANE);
/** The fill's order (orderByReach): each marked pixel's steps from the skin, the queue, and counts by steps. */
const STEPS = new Int32Array(PLANE);
const QUEUE = new Int32Array(PLANE);
const REACHED = new Int32Array(PLANE + 1);
/** Per pixel of a line, how far back the nearest marked one is. */
const BEHIND = new Float64Array(PATCH);
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
  // The percentile of the sRGB values, then in linear light: the same pixel's value (the curve rises).
  KEPT.set(green);
  const dark = FRAME_DARKNESS * toLinear(kthSmallest(KEPT, Math.floor(0.75 * (PLANE - 1))));
  // Compared in sRGB (the curve rises), in linear light only near the threshold.
  const threshold = toSrgb(dark);
  for (let i = 0; i < PLANE; i++) {
    const g = green[i]!;
    DARK[i] = (Math.abs(g - threshold) > NEAR ? g < threshold : toLinear(g) < dark) ? 1 : 0;
  }
  if (!markBands()) return 0;
  const count = widen(marginX, marginY);
  fillMarks(patches, offset, OUT);
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
  spread(OUT, ALONG, marginX, 1, PATCH);
  return spread(ALONG, OUT, marginY, PATCH, 1);
}

/**
 * Marks in `to` every pixel with one marked in `from` within `margin` of it along its line (PATCH lines
 * `stride` apart, their pixels `step` apart); returns how many.
 */
function spread(from: Uint8Array, to: Uint8Array, margin: number, step: number, stride: number): number {
  let count = 0;
  for (let line = 0; line < PATCH; line++) {
    const start = line * stride;
    // How far back the nearest marked pixel is, then how far ahead.
    let last = Number.NEGATIVE_INFINITY;
    for (let p = 0; p < PATCH; p++) {
      if (from[start + p * step]) last = p;
      BEHIND[p] = p - last;
    }
    let next = Number.POSITIVE_INFINITY;
    for (let p = PATCH - 1; p >= 0; p--) {
      if (from[start + p * step]) next = p;
      const hit = Math.min(BEHIND[p]!, next - p) <= margin ? 1 : 0;
      to[start + p * step] = hit;
      count += hit;
    }
  }
  return count;
}

/**
 * The pixels marked in `marks`, in each channel of the patch whose R plane is at `offset`, filled in from
 * the skin around them: first the median of the skin left, then FILL_ROUNDS rounds in which each becomes
 * the mean of its four neighbours (a smooth surface spanning the gap, as the skin would be). The three
 * channels go through each round together (FILLING), each with the arithmetic of a fill of its own.
 */
export function fillMarks(patches: Float32Array, offset: number, marks: Uint8Array): void {
  const marked = orderByReach(marks);
  // No skin left to fill from: every pixel marked, left as it is.
  if (marked === PLANE) return;
  for (let c = 0; c < 3; c++) {
    const plane = patches.subarray(offset + c * PLANE, offset + (c + 1) * PLANE);
    let kept = 0;
    for (let i = 0; i < PLANE; i++) if (!marks[i]) KEPT[kept++] = plane[i]!;
    const base = kthSmallest(KEPT.subarray(0, kept), kept >> 1);
    interleave(plane, c, base, marks);
  }
  // Every pixel from the previous round's neighbours (so a mirrored patch is filled as the mirror image),
  // each pair of opposite neighbours added first (addition is commutative: the same sums mirrored).
  // Only the marked pixels change, each round from one FILLING into the other, at the end into the patch.
  // A round is a function of its own: nested here it ran as on-stack-replaced code (docs/inference.md,
  // Performance). A pixel s steps from the skin (orderByReach) holds `base` until round s − 1 (from 0):
  // before it every neighbour it reads holds `base` too, and their mean is `base` exactly (2, 3 or 4
  // equal float32 values added in doubles, then divided by their count). So round r computes only the
  // pixels it can change, those at most r + 1 steps away (the first REACHED[r + 1] of MARKED); the others
  // keep `base` in both buffers.
  for (let round = 0; round < FILL_ROUNDS; round++)
    fillRound(REACHED[round + 1]!, FILLING[round % 2]!, FILLING[(round + 1) % 2]!);
  const filled = FILLING[FILL_ROUNDS % 2]!;
  for (let c = 0; c < 3; c++) {
    const plane = patches.subarray(offset + c * PLANE, offset + (c + 1) * PLANE);
    for (let k = 0; k < marked; k++) plane[MARKED[k]!] = filled[3 * MARKED[k]! + c]!;
  }
}

/**
 * The marked pixels of `marks` into MARKED, with their NEIGHBOURS and COUNTS, in order of how many
 * 4-connected steps through marked pixels they lie from an unmarked one (STEPS, 1 for those next to one);
 * REACHED[r] is how many lie at most r steps away. Returns how many are marked.
 */
function orderByReach(marks: Uint8Array): number {
  let marked = 0;
  let head = 0;
  let tail = 0;
  for (let i = 0; i < PLANE; i++) {
    if (!marks[i]) continue;
    marked++;
    const x = i % PATCH;
    const nextToSkin =
      (x > 0 && !marks[i - 1]) ||
      (x < PATCH - 1 && !marks[i + 1]) ||
      (i >= PATCH && !marks[i - PATCH]) ||
      (i < PLANE - PATCH && !marks[i + PATCH]);
    STEPS[i] = nextToSkin ? 1 : 0;
    if (nextToSkin) QUEUE[tail++] = i;
  }
  // Breadth first from the pixels next to the skin: each reached pixel one step further than its finder.
  while (head < tail) {
    const i = QUEUE[head++]!;
    const x = i % PATCH;
    const steps = STEPS[i]! + 1;
    if (x > 0) tail = reach(marks, i - 1, steps, tail);
    if (x < PATCH - 1) tail = reach(marks, i + 1, steps, tail);
    if (i >= PATCH) tail = reach(marks, i - PATCH, steps, tail);
    if (i < PLANE - PATCH) tail = reach(marks, i + PATCH, steps, tail);
  }
  // QUEUE now holds every reached pixel by its steps; REACHED counts them. None is reached when all are
  // marked (then nothing is filled), and then every count stays 0.
  REACHED.fill(0);
  for (let k = 0; k < tail; k++) REACHED[STEPS[QUEUE[k]!]!]!++;
  for (let r = 1; r <= PLANE; r++) REACHED[r]! += REACHED[r - 1]!;
  for (let k = 0; k < tail; k++) {
    const i = QUEUE[k]!;
    const x = i % PATCH;
    // A neighbour outside the patch reads FILLING's pixel PLANE, which holds 0, and does not count.
    NEIGHBOURS[4 * k] = 3 * (x > 0 ? i - 1 : PLANE);
    NEIGHBOURS[4 * k + 1] = 3 * (x < PATCH - 1 ? i + 1 : PLANE);
    NEIGHBOURS[4 * k + 2] = 3 * (i >= PATCH ? i - PATCH : PLANE);
    NEIGHBOURS[4 * k + 3] = 3 * (i < PLANE - PATCH ? i + PATCH : PLANE);
    COUNTS[k] =
      (x > 0 ? 1 : 0) + (x < PATCH - 1 ? 1 : 0) + (i >= PATCH ? 1 : 0) + (i < PLANE - PATCH ? 1 : 0);
    MARKED[k] = i;
  }
  return marked;
}

/** Queues marked pixel `i` at `steps` when not reached yet; returns the queue's new tail. */
function reach(marks: Uint8Array, i: number, steps: number, tail: number): number {
  if (!marks[i] || STEPS[i]) return tail;
  STEPS[i] = steps;
  QUEUE[tail] = i;
  return tail + 1;
}

/** Channel `c` of FILLING from its plane, its marked pixels at `base`. */
function interleave(plane: Float32Array, c: number, base: number, marks: Uint8Array): void {
  const [first, second] = FILLING as [Float32Array, Float32Array];
  for (let i = 0; i < PLANE; i++) {
    const value = marks[i] ? base : plane[i]!;
    first[3 * i + c] = value;
    second[3 * i + c] = value;
  }
}

/**
 * One round of the fill over the `marked` pixels, three channels each: from `from` into `to`, which hold
 * the same unmarked pixels.
 */
function fillRound(marked: number, from: Float32Array, to: Float32Array): void {
  for (let k = 0, n = 0; k < marked; k++, n += 4) {
    const a = NEIGHBOURS[n]!;
    const b = NEIGHBOURS[n + 1]!;
    const d = NEIGHBOURS[n + 2]!;
    const e = NEIGHBOURS[n + 3]!;
    const count = COUNTS[k]!;
    const at = 3 * MARKED[k]!;
    to[at] = (from[a]! + from[b]! + (from[d]! + from[e]!)) / count;
    to[at + 1] = (from[a + 1]! + from[b + 1]! + (from[d + 1]! + from[e + 1]!)) / count;
    to[at + 2] = (from[a + 2]! + from[b + 2]! + (from[d + 2]! + from[e + 2]!)) / count;
  }
}
