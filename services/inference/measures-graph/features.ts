/**
 * The contract of the skin-measures model: what goes in, what comes out, in which order. The graph
 * builder and every consumer of the model read these constants, so the column order is stated once.
 */

/** Bump when a feature's definition or the column order changes: consumers key their calibration on it. */
export const MEASURES_MODEL_VERSION = 'skin-measures-42.0.0';

/** Side of the square face-region patch, in pixels. */
export const PATCH_SIZE = 64;

/**
 * Input tensor: float32 [n, 3, PATCH_SIZE, PATCH_SIZE], sRGB, channels R, G, B: 0..1, and above 1 where
 * the colour correction lifts a channel past white (it does not clip what it creates).
 */
export const INPUT_NAME = 'patches';

/**
 * Second input: float32 rank 0, the depth (L*) a pit must exceed to count in `pit_depth` — the photo's
 * grain, which scoring.ts derives from the forehead's `grain_height` (measurer.ts runs the patches it is
 * read from first).
 */
export const PORE_FLOOR_NAME = 'pore_floor';

/**
 * Third input: float32 [3], per channel R, G, B, the level (of the corrected patches) from which a pixel
 * was clipped in the photo itself: a channel at white before the colour correction, whose true value is
 * unknown, so its ratio to the other channels means nothing. The skin's redness (`erythema_skin`) leaves
 * such pixels out. colour-constancy.ts gives the levels (clipLevels); +Infinity leaves none out.
 */
export const CLIP_LEVELS_NAME = 'clip_levels';

/**
 * Fourth input: float32 [n, 1, PATCH_SIZE, PATCH_SIZE], how much each pixel counts in uneven tone (`l_std`):
 * 1 but near the smile's fold in the cheeks, which the face's landmarks place (tone-weights.ts). Ones leave
 * every pixel in.
 */
export const TONE_WEIGHTS_NAME = 'tone_weights';

/** Output tensor: float32 [n, FEATURES.length], one row per patch, columns in FEATURES order. */
export const OUTPUT_NAME = 'features';

/**
 * Output columns, in order. L*, a*, b* are CIELAB (D65 white); docs/measures-graph.md says how each is
 * computed.
 */
export const FEATURES = [
  'l_mean',
  'l_std',
  'a_mean',
  'b_mean',
  'chroma_mean',
  'red_spot_frac',
  'dark_spot_frac',
  'pit_depth',
  'coarse_energy',
  'line_energy',
  'specular_frac',
  'red_frac',
  'erythema_skin',
  'l_contrast',
  'l_median',
  'grain_height',
  'l_light',
  'l_dark',
  'chroma_spread',
  'erythema_skin_first_half',
  'erythema_skin_second_half',
  'l_contrast_sides',
  'erythema_skin_sides',
  'l_contrast_median',
] as const;

export type FeatureName = (typeof FEATURES)[number];

/** Thresholds in CIELAB units, shared by the graph and its documentation. */
export const THRESHOLDS = {
  /** A pixel is a spot when it differs from its 9×9 local mean by more than this many units. */
  spotContrast: 6,
  /**
   * A dark spot is also darker than the mean of its own row, and of its own column, over DARK_SPOT_STRIP
   * pixels by more than this: a band along a row or a column (the lower lid and lashes along a cheek's top
   * edge) is as dark as that strip, and is no spot.
   */
  darkSpotStripContrast: 3,
  /**
   * Tone leaves spots out by degree: a pixel counts as a spot from spotContrast − spotRamp/2 darker or
   * redder than its surroundings, fully from spotContrast + spotRamp/2.
   */
  spotRamp: 4,
  /**
   * Specular shine: pixels far lighter than the patch's median L*. A pixel counts from specularMinExcess
   * above the median, fully from specularMinExcess + specularRamp.
   */
  specularMinExcess: 12,
  specularRamp: 8,
  /**
   * The skin's redness leaves out the halo around shine: the pixels of a shineBlock×shineBlock block with
   * shine, or next to one (by its largest degree), and the lightest lightestShare of the patch (judged on
   * every other row, on a mirror-symmetric half of the columns). Shine counts there from haloMinExcess above
   * the median (fully from haloMinExcess + specularRamp), half oiliness's threshold: a sheen on forehead
   * and nose that oiliness hardly counts (the faint oiliness edit) whitens their skin, lowers their
   * erythema index and so raised redness by 5 points on face b (`skin-measures-24.0.0`; 12 before).
   */
  shineBlock: 4,
  haloMinExcess: 6,
  lightestShare: 0.1,
  /** Linear R and G are floored at this before the erythema index takes their ratio's logarithm. */
  erythemaFloor: 1e-4,
  /** Visible redness. */
  redMinA: 15,
  /** A dark spot is not one that is also redder than its surroundings by more than this (a red spot). */
  darkSpotMaxRedness: 3,
  /** Pit depth counts up to this, so a few high-contrast spots weigh little. */
  textureCap: 4,
} as const;

/** Window of the local mean that spots are measured against. */
export const LOCAL_MEAN_WINDOW = 9;

/**
 * Length, in pixels, of the row and the column a dark spot must also be darker than (THRESHOLDS.
 * darkSpotStripContrast): about twice the strong dark-spot edit's spots (11 pixels across a cheek's patch).
 */
export const DARK_SPOT_STRIP = 25;

/**
 * σ, in pixels, of the Gaussian before l_std: patches of tone (pigment patches, about a sixth of an eye
 * distance across, 25 pixels of a cheek's patch) count; pores, relief and pixel noise much less.
 */
/**
 * The eye regions (regions.ts) run from 0.25 eye distances above the lower lid to 0.04 below it: `l_light`
 * reads their first EYE_LID_ROWS rows (down to 0.10 above the lid: the upper lid's skin), `l_dark` their rows
 * from EYE_FROM_ROW (from 0.18 above the lid: the eye itself, its lashes and pupil).
 */
export const EYE_LID_ROWS = 33;
export const EYE_FROM_ROW = 15;

export const TONE_SIGMA = 8;
