/**
 * Colour features: the patch's average colour, how much of it is red or shiny, and how many small spots
 * stand out from their surroundings in redness or darkness. Every feature is [n, 1, 1, 1].
 */
import type { CielabTensors } from './cielab.ts';
import {
  addHalfErythema,
  addNearShine,
  addShineBlocks,
  addSidesErythema,
  SAMPLE_COLUMNS,
} from './erythema-halves.ts';
import {
  DARK_SPOT_STRIP,
  EYE_FROM_ROW,
  EYE_LID_ROWS,
  LOCAL_MEAN_WINDOW,
  PATCH_SIZE,
  THRESHOLDS,
} from './features.ts';
import { FLOAT, type GraphBuilder } from './graph-builder.ts';
import {
  addKthLargest,
  addLessPlane,
  addMedian,
  addRows,
  addSkinWeight,
  addWeightedVariance,
  SKIN_SHARE,
} from './patch-ops.ts';

export type ColourFeatures = {
  l_mean: string;
  a_mean: string;
  b_mean: string;
  chroma_mean: string;
  red_spot_frac: string;
  dark_spot_frac: string;
  specular_frac: string;
  red_frac: string;
  erythema_skin: string;
  erythema_skin_first_half: string;
  erythema_skin_second_half: string;
  erythema_skin_sides: string;
  l_median: string;
  l_light: string;
  l_dark: string;
  chroma_spread: string;
};

/**
 * The colour features, and `spots`: the mask [n, 1, h, w] of pixels clearly darker or redder than their
 * surroundings, which the texture features leave out; `spotDegree` [n, 1, h, w]: how far each pixel is a
 * spot, 0 to 1 over THRESHOLDS.spotRamp units of L* or a* around spotContrast, which tone leaves out.
 * `srgb` is the input patches, `clipLevels` the per-channel levels [3] from which a pixel was clipped in
 * the photo (features.ts, CLIP_LEVELS_NAME).
 */
export function addColourFeatures(
  g: GraphBuilder,
  { l, a, b, linear }: CielabTensors,
  srgb: string,
  clipLevels: string,
): { features: ColourFeatures; spots: string; spotDegree: string } {
  const aSquared = g.node('Mul', [a, a], ['a_squared']);
  const bSquared = g.node('Mul', [b, b], ['b_squared']);
  const chromaSquared = g.node('Add', [aSquared, bSquared], ['chroma_squared']);
  const chroma = g.node('Sqrt', [chromaSquared], ['chroma']);

  // Shine is the light source reflected by the skin's surface: far lighter than the skin around it. It is
  // judged against the patch's own median L*, so that neither the baseline's correction nor how light the
  // skin is decides it, and not by colour: after the colour correction a highlight takes the tint of the
  // correction, not white. Each pixel counts by degree (0 to 1 over SPECULAR_RAMP units of L* from
  // specularMinExcess above the median), so that a highlight growing brighter moves the feature gradually.
  const zero = g.scalar('zero', 0);
  const one = g.scalar('unit', 1);
  const lMedian = addMedian(g, l, 'l_median');
  /** Each pixel's degree of shine, 0 to 1, by how far `level` lies above its patch's median. */
  const shineDegree = (level: string, median: string, name: string, minExcess: number) => {
    const excess = g.node(
      'Sub',
      [g.node('Sub', [level, median], [`${name}_above_median`]), g.scalar(`${name}_min_excess`, minExcess)],
      [`${name}_above_shine`],
    );
    const ramped = g.node(
      'Div',
      [excess, g.scalar(`${name}_ramp`, THRESHOLDS.specularRamp)],
      [`${name}_ramped`],
    );
    return g.node('Clip', [ramped, zero, one], [name]);
  };
  // Where redness leaves shine out: any light above the median by haloMinExcess or more (half oiliness's
  // threshold: a sheen whitens the skin before it reads as shine), side light and all; on each block's
  // lightest L*, since near shine reads each block's largest degree only (addShineBlocks).
  const lBlocks = addShineBlocks(g, l);
  const specular = shineDegree(lBlocks, lMedian, 'shine', THRESHOLDS.haloMinExcess);
  // Oiliness reads shine on L* less its plane: a gradient of light across the patch (a nose lit from one
  // side, half of it 12 above the median) is no shine; a highlight, lighter than what lies on both sides
  // of it, is.
  const lLevel = addLessPlane(g, l, 'l_level');
  const levelShine = shineDegree(
    lLevel,
    addMedian(g, lLevel, 'l_level_median'),
    'level_shine',
    THRESHOLDS.specularMinExcess,
  );
  const red = g.node('Greater', [a, g.scalar('red_min_a', THRESHOLDS.redMinA)], ['is_red']);

  // A spot is measured against its neighbourhood, not an absolute level, so it is found on any skin tone.
  const contrast = g.scalar('spot_min_contrast', THRESHOLDS.spotContrast);
  const localA = addLocalMean(g, a, 'local_mean_a');
  const aAboveLocal = g.node('Sub', [a, localA], ['a_above_local']);
  const redSpot = g.node('Greater', [aAboveLocal, contrast], ['is_red_spot']);
  const lBelowLocal = g.node('Sub', [addLocalMean(g, l, 'local_mean_l'), l], ['l_below_local']);
  const darker = g.node('Greater', [lBelowLocal, contrast], ['is_darker']);
  // A red spot is darker too; a dark spot is one that is not also clearly redder than around it, and is
  // darker than its row and its column too: not a band along the patch.
  const redder = g.node(
    'Greater',
    [aAboveLocal, g.scalar('dark_spot_max_redness', THRESHOLDS.darkSpotMaxRedness)],
    ['is_redder'],
  );
  const darkSpot = g.node(
    'And',
    [
      g.node('And', [darker, addNotBand(g, l)], ['is_darker_blob']),
      g.node('Not', [redder], ['is_not_redder']),
    ],
    ['is_dark_spot'],
  );
  const spots = g.node('Or', [darker, redSpot], ['is_spot']);
  // The skin's own redness: the erythema index 100·log10(R/G) in linear light (haemoglobin absorbs green,
  // not red). A ratio of channels, it ignores how light or shaded a pixel is, so relief and shadows do not
  // read as redness. Its mean over pixels at least four pixels away from any spot, so that a spot's soft rim
  // does not tint it (two and three pixels let acne move redness 5.5–6 on face c: docs/inference.md).
  const nearSpot = g.node('MaxPool', [g.node('Cast', [spots], ['spot_mask'], { to: FLOAT })], ['near_spot'], {
    kernel_shape: [9, 9],
    pads: [4, 4, 4, 4],
  });
  // Nor does shine, which shows the light rather than the skin, nor the halo around it: skin mixed with
  // the light's colour, lighter than the skin but below the shine threshold. The halo is left out by where
  // it lies (within SHINE_HALO pixels of shine, a MaxPool of the shine degree) and by rank (the lightest
  // tenth of the patch, whatever its level). A clipped highlight's L* and colour are no longer the skin's:
  // those pixels are left out below (clip_levels), and a face mostly clipped is refused (quality.ts), so
  // the shine threshold does not follow the white balance (docs/inference.md).
  const nearShine = addNearShine(g, specular);
  // Judged on every other row and, of the columns, on a set that is its own mirror image (SAMPLE_COLUMNS).
  const lightest = addKthLargest(
    g,
    g.node(
      'Gather',
      [
        g.node(
          'Slice',
          [
            l,
            g.ints('l_sample_starts', [0]),
            g.ints('l_sample_ends', [PATCH_SIZE]),
            g.ints('l_sample_axes', [2]),
            g.ints('l_sample_steps', [2]),
          ],
          ['l_sample_rows'],
        ),
        g.ints('l_sample_columns', SAMPLE_COLUMNS),
      ],
      ['l_sample'],
      { axis: 3 },
    ),
    Math.ceil(((PATCH_SIZE * PATCH_SIZE) / 4) * THRESHOLDS.lightestShare),
    'l_lightest',
  );
  // Nor do pixels clipped in the photo itself (a channel at white before the correction): their true
  // colour, hence their R/G, is unknown, and how many clip depends on the exposure.
  const awayFromSpots = g.node('Sub', [g.scalar('one', 1), nearSpot], ['away_from_spots']);
  const notClipped = g.node('Sub', [one, addClipped(g, srgb, clipLevels)], ['not_clipped']);
  const skinWeightsKept = g.node(
    'Mul',
    [
      g.node(
        'Mul',
        [awayFromSpots, g.node('Sub', [one, nearShine], ['away_from_shine'])],
        ['away_from_spots_and_shine'],
      ),
      notClipped,
    ],
    ['skin_weights_kept'],
  );
  const skinWeights = g.node(
    'Mul',
    [
      skinWeightsKept,
      g.node('Cast', [g.node('LessOrEqual', [l, lightest], ['not_lightest_mask'])], ['not_lightest'], {
        to: FLOAT,
      }),
    ],
    ['skin_weights'],
  );
  const skinTotal = g.node(
    'Add',
    [g.mean(skinWeights, 'skin_weight_mean'), g.scalar('skin_epsilon', 1e-6)],
    ['skin_weight_total'],
  );
  const erythema = addErythema(g, linear);
  const skinSum = g.mean(g.node('Mul', [erythema, skinWeights], ['erythema_weighted']), 'erythema_sum');
  const skinErythema = g.node('Div', [skinSum, skinTotal], ['erythema_skin']);
  // The same on each half of the patch's columns, for redness (each cheek's half beside the nose), each half
  // judged on its own light: erythema-halves.ts.
  const halves = { l, erythema, kept: g.node('Mul', [awayFromSpots, notClipped], ['half_kept']) };
  const shine = (median: string, name: string) =>
    shineDegree(lBlocks, median, name, THRESHOLDS.haloMinExcess);
  const half = (side: 0 | 1, name: string) => addHalfErythema(g, { ...halves, shine }, side, name);
  // The middle of the face's, for redness's baseline: its skin by what it is, on each half (erythema-halves.ts).
  const sides = addSidesErythema(
    g,
    { l, erythema, shine, redSpots: redSpot, spots, notClipped },
    'erythema_skin_sides',
  );
  const chromaSpread = addChromaSpread(g, l, lMedian);
  const features = {
    l_mean: g.mean(l, 'l_mean'),
    a_mean: g.mean(a, 'a_mean'),
    b_mean: g.mean(b, 'b_mean'),
    chroma_mean: g.mean(chroma, 'chroma_mean'),
    red_spot_frac: g.fraction(redSpot, 'red_spot_frac'),
    dark_spot_frac: g.fraction(darkSpot, 'dark_spot_frac'),
    specular_frac: g.mean(levelShine, 'specular_frac'),
    red_frac: g.fraction(red, 'red_frac'),
    erythema_skin: skinErythema,
    erythema_skin_first_half: half(0, 'erythema_skin_first_half'),
    erythema_skin_second_half: half(1, 'erythema_skin_second_half'),
    erythema_skin_sides: sides,
    l_median: lMedian,
    // The eye's contrast (scoring.ts, texture): the light skin of the upper lid (the 70th percentile of L* of
    // the eye region's upper rows) and the darkest of the eye itself, lashes and pupil (the 2nd percentile of
    // its lower rows).
    l_light: addKthLargest(
      g,
      addRows(g, l, 0, EYE_LID_ROWS, 'l_lid'),
      Math.round(0.3 * EYE_LID_ROWS * PATCH_SIZE),
      'l_light',
    ),
    l_dark: g.node(
      'Neg',
      [
        addKthLargest(
          g,
          g.node('Neg', [addRows(g, l, EYE_FROM_ROW, PATCH_SIZE, 'l_eye')], ['l_eye_negated']),
          Math.round(0.02 * (PATCH_SIZE - EYE_FROM_ROW) * PATCH_SIZE),
          'l_dark_negated',
        ),
      ],
      ['l_dark'],
    ),
    chroma_spread: chromaSpread,
  };
  // By degree: a fold or a faint spot whose contrast is near spotContrast, which a re-encoding tips one way
  // or the other, then moves tone a little, not the whole 9×9 neighbourhood of each pixel at once.
  const spotDegree = g.node(
    'Max',
    [addSpotDegree(g, lBelowLocal, 'dark_degree'), addSpotDegree(g, aAboveLocal, 'red_degree')],
    ['spot_degree'],
  );
  return { features, spots, spotDegree };
}

/**
 * Pixels darker than the mean of their own row, and of their own column, over DARK_SPOT_STRIP pixels
 * (inside the patch) by more than THRESHOLDS.darkSpotStripContrast: [n, 1, h, w] bool. A spot is darker
 * than the skin on every side; a band along the patch — the lower lid and lashes where a cheek's patch
 * reaches them, darker than its 9×9 surroundings only because they lie on one side — is as dark as its
 * own row, and a row more or less of it at the edge (a landmark a pixel lower in a re-encoded photo)
 * moved the dark spots of such a face by up to 29 points.
 */
function addNotBand(g: GraphBuilder, l: string): string {
  const half = (DARK_SPOT_STRIP - 1) / 2;
  const stripMean = (kernel: number[], pads: number[], name: string) =>
    g.node('AveragePool', [l], [name], { kernel_shape: kernel, pads, count_include_pad: 0 });
  const row = stripMean([1, DARK_SPOT_STRIP], [0, half, 0, half], 'row_mean_l');
  const column = stripMean([DARK_SPOT_STRIP, 1], [half, 0, half, 0], 'column_mean_l');
  const below = g.node(
    'Min',
    [g.node('Sub', [row, l], ['l_below_row']), g.node('Sub', [column, l], ['l_below_column'])],
    ['l_below_row_and_column'],
  );
  return g.node(
    'Greater',
    [below, g.scalar('dark_spot_strip_contrast', THRESHOLDS.darkSpotStripContrast)],
    ['is_not_band'],
  );
}

/** clip((contrast − (spotContrast − spotRamp/2)) / spotRamp, 0, 1): how far a pixel is a spot. */
function addSpotDegree(g: GraphBuilder, contrast: string, name: string): string {
  const from = THRESHOLDS.spotContrast - THRESHOLDS.spotRamp / 2;
  const ramped = g.node(
    'Div',
    [
      g.node('Sub', [contrast, g.scalar(`${name}_from`, from)], [`${name}_excess`]),
      g.scalar(`${name}_ramp`, THRESHOLDS.spotRamp),
    ],
    [`${name}_ramped`],
  );
  return g.node('Clip', [ramped, g.scalar(`${name}_zero`, 0), g.scalar(`${name}_one`, 1)], [name]);
}

/**
 * 1 where any channel of the patches `srgb` [n, 3, h, w] reaches its level in `clipLevels` [3] — clipped
 * in the photo — else 0: [n, 1, h, w].
 */
function addClipped(g: GraphBuilder, srgb: string, clipLevels: string): string {
  const levels = g.node(
    'Reshape',
    [clipLevels, g.ints('clip_levels_shape', [1, 3, 1, 1])],
    ['clip_levels_nchw'],
  );
  const atClip = g.node('GreaterOrEqual', [srgb, levels], ['at_clip']);
  return g.node('ReduceMax', [g.node('Cast', [atClip], ['at_clip_float'], { to: FLOAT })], ['clipped'], {
    axes: [1],
    keepdims: 1,
  });
}

/** 100·log10(R/G) of linear-light RGB [n, 3, h, w], per pixel [n, 1, h, w]; channels floored at 1e-4. */
function addErythema(g: GraphBuilder, linear: string): string {
  g.node('Split', [linear], ['linear_r', 'linear_g', 'linear_b'], { axis: 1 });
  const floor = g.scalar('erythema_floor', THRESHOLDS.erythemaFloor);
  const ratio = g.node(
    'Div',
    [
      g.node('Max', ['linear_r', floor], ['linear_r_floored']),
      g.node('Max', ['linear_g', floor], ['linear_g_floored']),
    ],
    ['red_over_green'],
  );
  return g.node(
    'Mul',
    [g.node('Log', [ratio], ['log_red_over_green']), g.scalar('erythema_scale', 100 / Math.LN10)],
    ['erythema'],
  );
}

/**
 * The skin the colour spread is read over: as addSkinWeight's, but none of it lighter than 1.2 times the
 * median's linear luminance (fully up to 1.0): a highlight or the sheen on a lit nose takes the light's
 * colour, paler than the skin's, and the photo's light decided how much of it there was. Over
 * skin up to 2.2 times the median, the sheen on one reference person's nose (img58) read 14.4 against their
 * other photos' 5.4–6.7 (now 10.2 against 5.2–6.1), and dullness's repeatability ratio was 1.35 (now 1.27;
 * docs/inference.md, "Dullness: shine is not colour").
 */
const CHROMA_SKIN_SHARE = { ...SKIN_SHARE, lightTo: 1.2 } as const;

/**
 * How much the patch's colour varies, whatever its lightness: √(var(E) + var(K)) over its skin
 * (CHROMA_SKIN_SHARE), E the erythema index (100·log10 R/G, addErythema's) and K the same of B/G (linear
 * light, each floored at THRESHOLDS.erythemaFloor). A camera's white balance and exposure multiply the
 * channels, which shifts E and K alike on every pixel and leaves their spread as it was; a less saturated
 * photo brings every pixel's colour nearer grey, and the spread shrinks. Read after addErythema (its R, G
 * and B planes).
 */
function addChromaSpread(g: GraphBuilder, l: string, lMedian: string): string {
  const floor = g.scalar('chroma_spread_floor', THRESHOLDS.erythemaFloor);
  const blueOverGreen = g.node(
    'Div',
    [
      g.node('Max', ['linear_b', floor], ['linear_b_floored']),
      g.node('Max', ['linear_g', floor], ['linear_g_floored_for_blue']),
    ],
    ['blue_over_green'],
  );
  const blue = g.node(
    'Mul',
    [g.node('Log', [blueOverGreen], ['log_blue_over_green']), g.scalar('blue_index_scale', 100 / Math.LN10)],
    ['blue_index'],
  );
  const skin = addSkinWeight(g, l, lMedian, 'chroma_spread_skin', CHROMA_SKIN_SHARE);
  const variance = (x: string, name: string) => addWeightedVariance(g, x, skin, `${name}_variance`);
  return g.node(
    'Sqrt',
    [
      g.node(
        'Add',
        [variance('erythema', 'erythema_spread'), variance(blue, 'blue_spread')],
        ['chroma_spread_variance'],
      ),
    ],
    ['chroma_spread'],
  );
}

/**
 * The mean over a LOCAL_MEAN_WINDOW² window around each pixel, same size as the input. Near the border
 * only the pixels inside the patch count (count_include_pad = 0), so edges are not pulled towards zero.
 */
function addLocalMean(g: GraphBuilder, input: string, output: string): string {
  const half = (LOCAL_MEAN_WINDOW - 1) / 2;
  return g.node('AveragePool', [input], [output], {
    kernel_shape: [LOCAL_MEAN_WINDOW, LOCAL_MEAN_WINDOW],
    pads: [half, half, half, half],
    count_include_pad: 0,
  });
}
