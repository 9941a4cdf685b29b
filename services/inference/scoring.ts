/**
 * From raw region features to scores. Each measure's raw value reads the regions where it shows (redness
 * on the cheeks, shine on forehead and nose, …), averaging left and right so that a mirrored photo scores
 * the same; higher raw values are always worse. The regions were colour-normalised to the face's own
 * baseline first (colour-constancy.ts), so colour measures are relative to the person's skin. Raw values
 * map to 0–100 linearly between the calibration's "good" (100) and "bad" (0) values, clamped; the
 * calibration is derived from a committed table of raw measures of real faces (calibration/). Higher is
 * healthier. Concerns come from the shared thresholds. All of it is a cosmetic estimate, not a diagnosis.
 */
import { concernsFromScores, MEASURES, type Measure } from '../shared/measures.ts';
import { CALIBRATION, CALIBRATION_VERSION } from './calibration/calibration.ts';
import { REFERENCE_L } from './colour-constancy.ts';
import type { Features } from './measurer.ts';
import type { FeatureName } from './measures-graph/features.ts';
import { lightnessOf, luminanceOf, luminanceOfLightness } from './pixel-math.ts';
import { REGIONS, type Region } from './regions.ts';

export { CALIBRATION_VERSION };

type Read = (regions: readonly Region[], name: keyof Features) => number;
/** Per channel R, G, B, the gains the colour correction multiplied the photo's linear light by (colour-constancy.ts). */
type Gains = readonly number[];
/** No correction: the gains of a photo already at the reference colour. */
const UNCORRECTED: Gains = [1, 1, 1];

const CHEEKS: Region[] = ['right_cheek', 'left_cheek'];
const UNDER_EYES: Region[] = ['right_under_eye', 'left_under_eye'];
const CROWS_FEET: Region[] = ['right_crows_feet', 'left_crows_feet'];
const EYES: Region[] = ['right_eye', 'left_eye'];

/** Each measure's raw value, and what it means (docs/inference.md has the same table). */
export const RAW_MEASURES: Readonly<Record<Measure, (read: Read, gains: Gains) => number>> = {
  /** Share of pixels redder (a*) than their 9×9 surroundings by more than 6. */
  acne: (read) => read([...CHEEKS, 'forehead', 'chin'], 'red_spot_frac'),
  /**
   * Erythema index (100·log10 R/G) of the skin of the cheeks' halves beside the nose (INNER_CHEEKS: spots,
   * shine and its halo left out) above the forehead's, nose's and middle of the face's: not the chin's,
   * where a beard grows (REDNESS_BASELINE).
   */
  redness: (read) => INNER_CHEEKS(read) - REDNESS_BASELINE(read),
  /** Share of cheek pixels darker (L*) than their 9×9 surroundings by more than 6. */
  dark_spots: (read) => read(CHEEKS, 'dark_spot_frac'),
  /** Spread of the cheeks' smoothed L* less their light and shade, spots and shine left out: patches lighter and darker than the rest. */
  uneven_tone: (read) => read(CHEEKS, 'l_std'),
  /** Thin dark creases running across the forehead and the crow's-feet (curvature of L*, pixel by pixel). */
  wrinkles: (read) => read(['forehead', ...CROWS_FEET], 'line_energy'),
  /** Mean depth of the cheeks' small dark pits (3×3 black top-hat of L* less its surround, capped) beyond the photo's grain, on level skin, spots left out. */
  pores: (read) => read(CHEEKS, 'pit_depth'),
  /**
   * Mean range (9×9 closing − opening) of the cheeks' smoothed L* less its wider mean, pores filled in first:
   * bumps and hollows of a few millimetres; relative to the photo's contrast as the eyes show it
   * (EYE_CONTRAST: the lids' corrected skin less the pupils as the photo recorded them).
   */
  texture: (read, gains) =>
    read(['right_cheek_relief', 'left_cheek_relief'], 'coarse_energy') *
    (EYE_CONTRAST_REFERENCE / Math.max(EYE_CONTRAST_MIN, EYE_CONTRAST(read, gains))) ** EYE_CONTRAST_POWER,
  /**
   * How much darker under the eyes is than the baseline skin, in L*: the median, so the lower lid's lashes
   * at the region's top edge and a spot or line that reaches it weigh little.
   */
  dark_circles: (read) => REFERENCE_L - read(UNDER_EYES, 'l_median'),
  /** Share of pixels far lighter than their own patch's median L* (shine, counted by degree) on forehead and nose. */
  oiliness: (read) => read(['forehead', 'nose'], 'specular_frac'),
  /**
   * Flatness of the middle of the face's skin (brows to the nose's base, where no beard grows) in light
   * and colour: minus the standard deviation of its L* (luminance contrast) and CHROMA_WEIGHT times the
   * spread of its colour (chroma_spread: how far its pixels' R/G and B/G vary, which white balance and
   * exposure do not change and a less saturated photo lowers); both over its skin only, brows, lashes,
   * pupils, nostrils and the eyes' whites left out by their lightness against the skin's, so that a darker
   * skin does not read duller (skin-measures-29.0.0; docs/inference.md, "Skin tone alone"); the colour's
   * spread over skin no lighter than 1.2 times the median's luminance, shine's pale colour left out
   * (skin-measures-35.0.0, "Dullness: shine is not colour"). The luminance contrast is read within each
   * half of the region (`l_contrast_sides`: a light from one side lights one flank of the nose and shades
   * the other) and relative to the region's lightness (CONTRAST_LIGHTNESS), skin-measures-37.0.0,
   * "Dullness: one side lit"; from the brows to above the ball of the nose, which the light models
   * (skin-measures-41.0.0, "Dullness: the ball of the nose is light").
   */
  dullness: (read) =>
    -(
      read(['face'], 'l_contrast_sides') * CONTRAST_LIGHTNESS(read) +
      CHROMA_WEIGHT * read(['face'], 'chroma_spread')
    ),
};

/**
 * Dullness's contrast relative to the lightness of the middle of the face: (REFERENCE_L + 16) / (the median
 * L* of the rows its contrast reads + 16: `l_contrast_median`, skin-measures-41.0.0), 1 at the reference skin's. L* + 16 goes as the cube root of the luminance, so a spread of L*
 * over it is a spread of light relative to the light there: the colour correction brings the baseline
 * (forehead, nose, chin) to the reference, and the middle of the face, with the eyes' sockets, lies a
 * little lighter or darker by how the photo was lit (median L* 40–70 on the reference photos), which
 * scaled its spread of L* with it (docs/inference.md, "Dullness: one side lit").
 */
const CONTRAST_LIGHTNESS = (read: Read): number =>
  (REFERENCE_L + 16) / (read(['face'], 'l_contrast_median') + 16);

/**
 * The skin redness is judged against: forehead, nose and the middle of the face (`face`: brows to the
 * nose's base). The chin was a third of it until skin-measures-30.0.0, and hair there lowers its erythema
 * index (a painted full beard took face a's chin from 19.1 to 3.8, face i's from 31.5 to 2.6), so a beard,
 * even stubble, moved redness by up to 37 points. Hair covers the chin's skin whole, so no per-pixel mask
 * leaves skin to read there, and weighing the chin by the skin it has left moves the baseline by the chin's
 * own offset whenever hair comes or goes (faces j and k by 12–14 points). The middle of the face, a larger
 * patch than the nose, moves less when the landmarks shift under a beard (the nose's patch by up to 0.045
 * eye distances, its erythema index by up to 8) and dilutes a sheen on the nose (the oiliness edit moved
 * redness by 7 on face b against forehead and nose alone). docs/inference.md, "Beards". The middle of the
 * face is read on its skin by what it is, on each half (`erythema_skin_sides`, skin-measures-39.0.0): read
 * with its brows, eyes and nostrils as spots (their 9×9 rim) and shine's halo on a median they lowered, 0.2–45
 * % of it was read, often the brows ("Redness's baseline reads the middle of the face's skin").
 * Read so, it weighs two thirds of the baseline, forehead and nose a sixth each (skin-measures-40.0.0): the
 * 68 landmarks drift under a beard (0.02–0.06 eye distances on faces a, e, f), and the nose's small patch on
 * the erythema's steep slope from the bridge to the tip followed them (face e's by +6.5), where the middle's
 * skin moves by under 1; a third each, the painted beard moved redness by 14 (e), 8 (a), 12 (f), now 8, 6, 7
 * ("A beard's landmarks and the nose's weight").
 */
const REDNESS_BASELINE = (read: Read): number =>
  (read(['forehead', 'nose'], 'erythema_skin') + 2 * read(['face'], 'erythema_skin_sides')) / 3;

/**
 * The skin redness of the cheeks' halves beside the nose: the right cheek's second half (its patch runs
 * along the eye line, toward the subject's left) and the left cheek's first. The outer halves, toward the
 * ears, turn away from the camera into the light or the shade of a turned or side-lit face, and a beard
 * reaches them first: on the reference faces they told people apart less well than the inner halves
 * (repeatability 1.11 against 0.81; both halves together 0.96). docs/inference.md, "Redness reads the
 * cheeks beside the nose".
 */
const INNER_CHEEKS = (read: Read): number =>
  (read(['right_cheek'], 'erythema_skin_second_half') + read(['left_cheek'], 'erythema_skin_first_half')) / 2;

/**
 * How much the face's colour spread counts in dullness, against its luminance contrast (docs/inference.md,
 * "Dullness reads colour"): the smallest weight of those tried (0.15–1) under which a photo cut to 20 %
 * saturation loses at least 10 points of dullness on every controlled-edit face; each larger weight
 * tells people apart less well (repeatability ratio 0.83 at 0.25, 0.93 at 0.5, 1.05 at 1). 0.3 since
 * dullness reads the middle of the face (skin-measures-27.0.0, "Beards"), which holds less colour: at 0.25
 * face c lost 9 points at 20 % saturation (ratio 0.95; 0.3: 0.96; 0.35: 0.97). 0.2 since the spreads are
 * the skin's only (skin-measures-29.0.0): the skin's colour spread is small, and a red patch painted on the
 * cheeks' inner edge (the acne and redness edits) then moved dullness by 7 on face c at 0.3.
 */
const CHROMA_WEIGHT = 0.2;

/**
 * The photo's contrast as the eyes show it, in L*: the light skin of the upper lids (70th percentile of the
 * eye regions' upper rows, colour-corrected) less the darkest of the eyes, lashes and pupils (2nd percentile
 * of the lower rows) as the photo recorded it, before the colour correction (photoLightness). Relief shows
 * as light and shade, which a photo with less contrast (a flat tone curve, haze, lifted blacks) shows less
 * of, and the eyes' contrast falls with it (docs/inference.md). The lid is skin, which the correction brings
 * to the reference lightness whatever the person's skin tone; the pupil is not: read after the correction, a
 * darker skin's larger gains lifted it and the contrast fell with the skin's tone (skin-measures-30.0.0,
 * "Skin tone alone"). Partly (the power): the eyes' figure also moves a little with the landmarks.
 */
const EYE_CONTRAST = (read: Read, gains: Gains): number =>
  read(EYES, 'l_light') -
  EYES.reduce((sum, eye) => sum + photoLightness(read([eye], 'l_dark'), gains), 0) / EYES.length;

/**
 * The L* a corrected pixel of lightness `l` had in the photo: its luminance divided by the gains' (exact for
 * a grey pixel; the pupils and lashes it is used for are nearly grey).
 */
function photoLightness(l: number, gains: Gains): number {
  return lightnessOf(luminanceOfLightness(l) / luminanceOf(gains[0]!, gains[1]!, gains[2]!));
}
/** The calibration set's median eye contrast (L*), so texture keeps its scale; and a floor (closed eyes). */
const EYE_CONTRAST_REFERENCE = 46;
const EYE_CONTRAST_MIN = 15;
const EYE_CONTRAST_POWER = 0.6;

/**
 * A pit counts in `pores` only by how far it is deeper than GRAIN_FLOOR times the photo's grain: the mean
 * height of the forehead's small bright specks (`grain_height`, the white top-hat at the pits' own scale).
 * Grain — sensor noise, JPEG's quantisation, resampling — makes as many bright specks as dark pits, and
 * changes as a photo is re-compressed or resized; pores, lines and hair are dark, so the bright specks read
 * the grain alone. About a fifth of a grain field's specks stand more than twice their mean height. The
 * forehead is skin the pore measure does not read, so pores painted or grown on the cheeks do not raise
 * their own floor.
 */
const GRAIN_FLOOR = 2;
const GRAIN: (read: Read) => number = (read) => read(['forehead'], 'grain_height');

/** The pore floor of a photo (L*), from the features of its regions. */
export function poreFloor(features: readonly Features[]): number {
  return GRAIN_FLOOR * GRAIN(reader(features));
}

export interface Scored {
  readonly scores: Readonly<Record<Measure, number>>;
  readonly raw: Readonly<Record<Measure, number>>;
  readonly concerns: Measure[];
}

/**
 * Regions measured as one group (Measurer.load's `together`), by their places in REGIONS: the cheeks,
 * which read the same features but each its own half's redness (erythema_skin_second_half and
 * erythema_skin_first_half), as one group of two rather than two of one.
 */
export const MEASURED_TOGETHER: readonly (readonly number[])[] = [
  [REGIONS.indexOf('right_cheek'), REGIONS.indexOf('left_cheek')],
];

/**
 * The features each region is read for, in REGIONS order: what RAW_MEASURES reads, found by running each
 * once with a reader that writes down what it is asked. The measurer measures nothing else.
 */
export const FEATURES_READ: readonly (readonly FeatureName[])[] = (() => {
  const read = REGIONS.map(() => new Set<FeatureName>());
  for (const raw of [...Object.values(RAW_MEASURES), GRAIN]) {
    raw((regions, name) => {
      for (const region of regions) read[REGIONS.indexOf(region)]!.add(name);
      return 0;
    }, UNCORRECTED);
  }
  return read.map((names) => [...names]);
})();

/**
 * Raw values of every measure; `features` holds one row per region, in REGIONS order, measured on patches
 * the colour correction multiplied by `gains` (none when absent).
 */
export function rawMeasures(
  features: readonly Features[],
  gains: Gains = UNCORRECTED,
): Record<Measure, number> {
  const read = reader(features);
  return Object.fromEntries(MEASURES.map((m) => [m, RAW_MEASURES[m](read, gains)])) as Record<
    Measure,
    number
  >;
}

function reader(features: readonly Features[]): Read {
  return (regions, name) =>
    regions.reduce((sum, region) => sum + features[REGIONS.indexOf(region)]![name], 0) / regions.length;
}

export function scoreRaw(measure: Measure, value: number): number {
  const { good, bad } = CALIBRATION[measure];
  const t = (value - good) / (bad - good);
  return Math.round(100 * (1 - Math.min(1, Math.max(0, t))));
}

/** Scores and concerns of the features of patches corrected by `gains` (none when absent). */
export function scoreFeatures(features: readonly Features[], gains: Gains = UNCORRECTED): Scored {
  const raw = rawMeasures(features, gains);
  const scores = Object.fromEntries(MEASURES.map((m) => [m, scoreRaw(m, raw[m])])) as Record<Measure, number>;
  return { scores, raw, concerns: concernsFromScores(scores).map((c) => c.name) };
}
