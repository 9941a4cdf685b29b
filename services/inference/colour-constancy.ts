/**
 * Colour constancy: the camera's white balance and exposure scale each linear RGB channel of the whole
 * photo by some factor. Dividing each channel by the face's own baseline skin colour — the per-channel
 * median, in linear light, of the forehead, nose and chin (the chin's hair left out) — and multiplying by
 * a fixed reference skin colour undoes any such scaling, so every colour measure reads the skin relative to
 * the person's own baseline: redness is the cheeks' erythema index above it, dark circles the under-eyes'
 * L* below the forehead's and nose's (UNDER_EYE_BASELINE: no chin, where beards grow, and no shine).
 * The medians ignore small features (spots, lines, shine) painted or grown on the baseline skin, lines
 * across the forehead are filled in first (a closing down its patch's columns), and pixels darker than their
 * surroundings (lines, creases, pores, hairs) are left out. The cost, stated in
 * docs/inference.md: skin tone itself is normalised away, so no measure reads how light or dark a skin is.
 */

import { closeDown } from './forehead-closing.ts';
import { lightnessOf, luminanceOf, toLinear, toSrgb } from './pixel-math.ts';
import { PATCH, REGIONS, type Region } from './regions.ts';

/**
 * Regions whose skin sets the baseline: forehead, nose and chin. Not the cheeks, where most changes a
 * measure looks for happen (redness, spots, tone, pores, texture), nor under the eyes (dark circles), so
 * those changes do not shift the correction of every other measure.
 */
export const BASELINE_REGIONS: readonly Region[] = ['forehead', 'nose', 'chin'];
/**
 * The skin the under-eyes are corrected against (dark circles): forehead and nose, not the chin, where a
 * beard grows (a full beard moved dark circles by up to 20: docs/inference.md, "Beards"). Their pixels
 * lighter in linear green than SHINE_RATIO times their region's median (shine, which without the chin weighed
 * more: the oiliness edit moved dark circles by 6) are left out. Other regions keep BASELINE_REGIONS.
 */
export const UNDER_EYE_BASELINE: readonly Region[] = ['forehead', 'nose'];
const SHINE_RATIO = 1.3;
/**
 * Hair on the chin (beard, stubble): its pixels darker, in linear green, than HAIR times the median of
 * forehead's and nose's skin are left out of the baseline, so that the correction is measured on skin. A
 * painted beard took e's gains from 2.49/2.03/1.58 to 3.69/3.15/2.69 and a's blue gain up by 75 % with the
 * chin's hair in the median (docs/inference.md, "The colour correction measured on skin"). Beardless chins
 * read 0.71–1.07 of forehead and nose, bearded ones 0.05–0.46; judged against the person's own skin, in
 * one channel, the choice holds for any skin tone and does not change when a camera scales the channels.
 */
const HAIR = 0.5;
const CHIN = BASELINE_REGIONS.indexOf('chin');
/** The patches (their places in REGIONS) corrected against UNDER_EYE_BASELINE. */
const UNDER_EYES = new Set(['right_under_eye', 'left_under_eye'].map((r) => REGIONS.indexOf(r as Region)));
/** The reference skin colour the baseline is mapped to, sRGB 0..255 (a light-to-mid skin tone, L* ≈ 72). */
export const REFERENCE_SRGB = [214, 168, 142] as const;

const REFERENCE = REFERENCE_SRGB.map((c) => toLinear(c / 255));
/** L* of the reference colour: the baseline's lightness after normalisation. */
export const REFERENCE_L = lightnessOf(luminanceOf(REFERENCE[0]!, REFERENCE[1]!, REFERENCE[2]!));
/**
 * The lowest skin median (sRGB level 8) a gain lifts to the reference: below it an 8-bit step is an eighth of
 * the value. No cap on the gain (8× until skin-measures-31.0.0): a darker skin needs larger gains, and a capped
 * one read as dark circles and an even tone (docs/inference.md, "Skin tone alone"); too_dark refuses first.
 */
const MIN_MEDIAN = toLinear(8 / 255);

/** Levels of the histogram the medians are read from: finer than any 8-bit photo's steps. */
const LEVELS = 4096;

/**
 * Baseline pixels that show the skin's own colour: not darker, in green light (linear), than the mean of
 * their NEIGHBOURHOOD×NEIGHBOURHOOD surroundings by more than CREASE_DEPTH of it. Lines, creases, pores and
 * hairs are shade or hair, not the skin's colour, and forehead lines would otherwise move the median,
 * hence the correction's gain, with them. Judged on one channel against its own surroundings, the choice
 * does not change when a camera scales the channels.
 */
const NEIGHBOURHOOD = 5;
const CREASE_DEPTH = 0.07;

/** Scratch planes for skinPixels, reused from photo to photo (the analysis allocates little per photo). */
const GREEN = new Float64Array(PATCH * PATCH);
const ALONG_ROWS = new Float64Array(PATCH * PATCH);
const AROUND = new Float64Array(PATCH * PATCH);
const SKIN = new Uint8Array(BASELINE_REGIONS.length * PATCH * PATCH);
/** Scratch planes for the forehead's closing (forehead-closing.ts). */
const DILATED = new Float32Array(PATCH * PATCH);
const CLOSED = [0, 1, 2].map(() => new Float32Array(PATCH * PATCH));

/**
 * Marks in `skin` (one plane) with 1 each pixel of the region's patch at `offset` (its R plane) that shows
 * the skin, else 0; returns how many do.
 */
function skinPixels(patches: Float32Array, offset: number, skin: Uint8Array): number {
  const plane = PATCH * PATCH;
  linearGreen(patches, offset + plane, GREEN);
  boxMean(GREEN, ALONG_ROWS, 1, PATCH);
  boxMean(ALONG_ROWS, AROUND, PATCH, 1);
  return markSkin(GREEN, AROUND, skin);
}

/** Into `out`, the plane at `offset` in linear light. */
function linearGreen(patches: Float32Array, offset: number, out: Float64Array): void {
  for (let i = 0; i < out.length; i++) out[i] = toLinear(patches[offset + i]!);
}

/** Marks in `skin` the pixels not darker than CREASE_DEPTH below their surroundings; returns how many. */
function markSkin(green: Float64Array, around: Float64Array, skin: Uint8Array): number {
  let count = 0;
  for (let i = 0; i < green.length; i++) {
    skin[i] = green[i]! >= (1 - CREASE_DEPTH) * around[i]! ? 1 : 0;
    count += skin[i]!;
  }
  return count;
}

/**
 * Into `out`, the mean over NEIGHBOURHOOD values along one axis of a PATCH×PATCH plane (`step` 1: along
 * rows, PATCH: down columns), counting only values inside the patch.
 */
export function boxMean(values: Float64Array, out: Float64Array, step: number, across: number): void {
  for (let line = 0; line < PATCH; line++) boxMeanLine(values, out, line * across, step);
}

/**
 * One line of boxMean, from `start`. Away from the patch's edge all NEIGHBOURHOOD values count, added left
 * to right as at the edge (where the first addition, to 0, gives the value itself) without the edge's
 * bounds on every value: the same sums.
 */
function boxMeanLine(values: Float64Array, out: Float64Array, start: number, step: number): void {
  const half = (NEIGHBOURHOOD - 1) / 2;
  for (let k = 0; k < half; k++) boxMeanEdge(values, out, start, step, k);
  const end = start + (PATCH - half) * step;
  for (let at = start + half * step; at < end; at += step) {
    let sum = values[at - half * step]!;
    for (let j = 1 - half; j <= half; j++) sum += values[at + j * step]!;
    out[at] = sum / NEIGHBOURHOOD;
  }
  for (let k = PATCH - half; k < PATCH; k++) boxMeanEdge(values, out, start, step, k);
}

/** Value k of a line of boxMean near the patch's edge: only the values inside the patch count. */
function boxMeanEdge(values: Float64Array, out: Float64Array, start: number, step: number, k: number): void {
  const half = (NEIGHBOURHOOD - 1) / 2;
  let sum = 0;
  let count = 0;
  for (let j = Math.max(0, k - half); j <= Math.min(PATCH - 1, k + half); j++) {
    sum += values[start + j * step]!;
    count++;
  }
  out[start + k * step] = sum / count;
}

type Gains = [number, number, number];

/** Both corrections' gains: every region's (BASELINE_REGIONS) and the regions under the eyes' (UNDER_EYE_BASELINE). */
export interface ColourGains {
  readonly gains: Gains;
  readonly underEye: Gains;
}

/** Where UNDER_EYE_BASELINE's regions are in BASELINE_REGIONS (it is a part of it). */
const EYE_BASELINE = UNDER_EYE_BASELINE.map((region) => {
  const at = BASELINE_REGIONS.indexOf(region);
  if (at < 0) throw new Error(`${region} is not a baseline region`);
  return at;
});
/** The skin of UNDER_EYE_BASELINE's regions, shine left out (scratch). */
const EYE_SKIN = new Uint8Array(UNDER_EYE_BASELINE.length * PATCH * PATCH);

/**
 * The gains that map the baseline's per-channel median (linear light) to the reference colour, over the
 * baseline pixels that show the skin (skinPixels); for the regions under the eyes, over forehead's and
 * nose's such pixels that are not lighter, in green, than SHINE_RATIO times their region's median. Both
 * share the skin masks and the forehead's closing. The sRGB curve is monotonic, so a median is found on
 * the sRGB values, by histogram, and converted once.
 */
export function colourGains(patches: Float32Array): ColourGains {
  const plane = PATCH * PATCH;
  const histogram = new Uint32Array(LEVELS);
  const offsets = BASELINE_REGIONS.map((region) => REGIONS.indexOf(region) * 3 * plane);
  const forehead = REGIONS.indexOf('forehead') * 3 * plane;
  const skin = offsets.map((_, r) => SKIN.subarray(r * plane, (r + 1) * plane));
  const counted = offsets.reduce((sum, offset, r) => sum + skinPixels(patches, offset, skin[r]!), 0);
  // Each region's three planes, the forehead's closed down its columns.
  const planes = offsets.map((offset) =>
    [0, 1, 2].map((c) => {
      const values = patches.subarray(offset + c * plane, offset + (c + 1) * plane);
      return offset === forehead ? closeDown(values, DILATED, CLOSED[c]!) : values;
    }),
  );
  const kept = counted - leaveOutHair(planes, skin, histogram);
  const gains = medianGains(planes, skin, kept, histogram);
  let eyeCounted = 0;
  const eyeSkin = EYE_BASELINE.map((r, e) => {
    const kept = EYE_SKIN.subarray(e * plane, (e + 1) * plane);
    kept.set(skin[r]!);
    histogram.fill(0);
    const marked = count(planes[r]![1]!, kept, histogram);
    eyeCounted += marked - leaveOutShine(planes[r]![1]!, kept, histogram, marked);
    return kept;
  });
  const eyePlanes = EYE_BASELINE.map((r) => planes[r]!);
  return { gains, underEye: medianGains(eyePlanes, eyeSkin, eyeCounted, histogram) };
}

/**
 * Clears in `skin` the chin's pixels darker, in linear green, than HAIR times the median of forehead's and
 * nose's skin (`histogram` is scratch); returns how many it cleared.
 */
function leaveOutHair(
  planes: readonly (readonly Float32Array[])[],
  skin: readonly Uint8Array[],
  histogram: Uint32Array,
): number {
  histogram.fill(0);
  const marked = EYE_BASELINE.reduce((sum, r) => sum + count(planes[r]![1]!, skin[r]!, histogram), 0);
  let level = 0;
  for (let n = histogram[0]!; n < marked / 2; n += histogram[++level]!);
  const floor = toSrgb(HAIR * toLinear((level + 0.5) / LEVELS));
  return clearBelow(planes[CHIN]![1]!, skin[CHIN]!, floor);
}

/** Clears in `skin` the pixels of `values` below `floor`; returns how many it cleared. */
function clearBelow(values: Float32Array, skin: Uint8Array, floor: number): number {
  let cleared = 0;
  for (let i = 0; i < values.length; i++) {
    if (skin[i] && values[i]! < floor) {
      skin[i] = 0;
      cleared++;
    }
  }
  return cleared;
}

/** The gains of every region but those under the eyes (colourGains). */
export function baselineGains(patches: Float32Array): Gains {
  return colourGains(patches).gains;
}

/**
 * Per channel, the gain that maps the median of the regions' planes (`planes[r][c]`) over the pixels
 * `skin[r]` marks (`counted` in all) to the reference colour. `histogram` is scratch.
 */
function medianGains(
  planes: readonly (readonly Float32Array[])[],
  skin: readonly Uint8Array[],
  counted: number,
  histogram: Uint32Array,
): Gains {
  return [0, 1, 2].map((c) => {
    histogram.fill(0);
    for (const [r, region] of planes.entries()) count(region[c]!, skin[r]!, histogram);
    const half = counted / 2;
    let level = 0;
    for (let count = histogram[0]!; count < half; count += histogram[++level]!);
    const median = toLinear((level + 0.5) / LEVELS);
    return REFERENCE[c]! / Math.max(median, MIN_MEDIAN);
  }) as Gains;
}

/**
 * Clears in `skin` the pixels of `values` (one plane, 0..1) lighter than SHINE_RATIO times the median
 * (linear) of the pixels it marks, whose histogram (`histogram`, `counted` of them) is given; returns how
 * many it cleared.
 */
function leaveOutShine(
  values: Float32Array,
  skin: Uint8Array,
  histogram: Uint32Array,
  counted: number,
): number {
  let level = 0;
  for (let n = histogram[0]!; n < counted / 2; n += histogram[++level]!);
  const ceiling = toSrgb(SHINE_RATIO * toLinear((level + 0.5) / LEVELS));
  let cleared = 0;
  for (let i = 0; i < values.length; i++) {
    if (skin[i] && values[i]! > ceiling) {
      skin[i] = 0;
      cleared++;
    }
  }
  return cleared;
}

/**
 * The patches with the gains (colourGains' unless given; the regions under the eyes with the second
 * ones given, colourGains' `underEye` unless given) applied in linear light, back in sRGB, into `out`
 * when given (which may be `patches` itself: each value is read before it is written). Not clipped at
 * white: a channel the gain lifts past 1 keeps its value above 1, so the correction undoes a camera's
 * scaling of the channels whatever the exposure (clipped at 1, 36 % of face e's nose's red channel was,
 * at a gain of 2.5, and how much depended on the exposure: docs/inference.md, Colour constancy).
 */
export function normaliseColour(
  patches: Float32Array,
  out: Float32Array = new Float32Array(patches.length),
  given?: readonly number[],
  givenUnderEye?: readonly number[],
): Float32Array {
  const both = given && givenUnderEye ? undefined : colourGains(patches);
  const gains = given ?? both!.gains;
  const underEye = givenUnderEye ?? both!.underEye;
  const plane = PATCH * PATCH;
  const curves = gains.map((gain, c) => curve(gain, LEVELS_OF[c]!, STEPS_OF[c]!));
  const eyeCurves = underEye.map((gain, c) => curve(gain, LEVELS_OF[3 + c]!, STEPS_OF[3 + c]!));
  for (let p = 0; p < patches.length / (3 * plane); p++) {
    for (let c = 0; c < 3; c++) {
      const { levels, steps } = (UNDER_EYES.has(p) ? eyeCurves : curves)[c]!;
      applyCurve(patches, (p * 3 + c) * plane, plane, levels, steps, out);
    }
  }
  return out;
}

/** The 257 levels i / 256 of a curve in linear light (toLinear), the same for every gain. */
const LINEAR_LEVELS = Float64Array.from({ length: 257 }, (_, i) => toLinear(i / 256));

/**
 * A channel's correction by `gain` (linear light, in and out sRGB) at 256 levels, and its steps to the next
 * level, into `levels` and `steps`.
 */
function curve(gain: number, levels: Float64Array, steps: Float64Array) {
  // 256 input levels cover 8-bit photos exactly; patches are bilinear mixes, so interpolate.
  const table = new Float32Array(257);
  for (let i = 0; i <= 256; i++) table[i] = toSrgb(LINEAR_LEVELS[i]! * gain);
  // The same doubles the interpolation reads from the float32 table (a difference of two float32 is
  // exact in a double), looked up once per level rather than per value.
  for (let i = 0; i < 256; i++) {
    levels[i] = table[i]!;
    steps[i] = table[i + 1]! - table[i]!;
  }
  return { levels, steps };
}

/**
 * A patch value (0..1) at or above which a channel counts as clipped in the photo: white, or a mix
 * (sampling averages neighbouring pixels) mostly of white.
 */
export const CLIPPED = 250 / 255;

/**
 * Per channel, the level of the corrected patches (normaliseColour with `gains`) at or above which a pixel
 * was clipped in the photo: CLIPPED through that channel's curve, the same arithmetic as applyCurve on
 * the same float32 table entries, so a corrected value reaches it exactly when the photo's value reached
 * CLIPPED (the curve rises).
 */
export function clipLevels(gains: readonly number[]): number[] {
  const x = Math.fround(CLIPPED) * 256;
  const k = Math.min(255, x | 0);
  return gains.map((gain) => {
    const [below, above] = [k, k + 1].map((i) => Math.fround(toSrgb(toLinear(i / 256) * gain)));
    return Math.fround(below! + (above! - below!) * (x - k));
  });
}

/** Each channel's curve at the 256 levels, and its steps to the next level (normaliseColour's scratch). */
const LEVELS_OF = [0, 1, 2, 3, 4, 5].map(() => new Float64Array(256));
const STEPS_OF = [0, 1, 2, 3, 4, 5].map(() => new Float64Array(256));

/*
 * The per-pixel loops are functions of their own: called for every plane, they are compiled whole by V8
 * after a few photos, where a loop nested in a function called once a photo ran as on-stack-replaced code
 * that was thrown away at every exit from the inner loop (five times slower in the service).
 */

/**
 * Adds each value (0..1) of a plane whose pixel shows the skin (`skin` 1) to the histogram of LEVELS
 * levels; returns how many it added.
 */
function count(plane: Float32Array, skin: Uint8Array, histogram: Uint32Array): number {
  let added = 0;
  for (let i = 0; i < plane.length; i++) {
    // Every pixel added with its mark, 1 or 0: the same counts, without a branch on scattered marks.
    const marked = skin[i]!;
    histogram[Math.min(LEVELS - 1, Math.max(0, Math.floor(plane[i]! * LEVELS)))]! += marked;
    added += marked;
  }
  return added;
}

/**
 * The `length` values (0..1) from `start` through the curve (its value at each of 256 levels and its step
 * to the next), linearly interpolated, into the same places of `out`.
 */
function applyCurve(
  values: Float32Array,
  start: number,
  length: number,
  levels: Float64Array,
  steps: Float64Array,
  out: Float32Array,
): void {
  for (let i = start; i < start + length; i++) {
    const x = Math.min(256, Math.max(0, values[i]! * 256));
    // Truncation is the floor here: x is 0 or more.
    const k = Math.min(255, x | 0);
    out[i] = levels[k]! + steps[k]! * (x - k);
  }
}
