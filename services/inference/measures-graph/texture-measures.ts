/**
 * Texture features: how L* varies across the patch, from slow tone changes to pore-sized pits and
 * horizontal lines. Filters are unpadded ("valid"): zero padding would read as a steep edge of L* = 0
 * around every patch, so each filter's output is smaller than its input and only real pixels count; the
 * one padded filter, the 3×3 closing of pit_depth, is a MaxPool, whose padding never wins.
 * Every feature is [n, 1, 1, 1].
 */
import { THRESHOLDS, TONE_WINDOW } from './features.ts';
import { FLOAT, type GraphBuilder } from './graph-builder.ts';

export type TextureFeatures = {
  l_std: string;
  pit_depth: string;
  coarse_energy: string;
  line_energy: string;
  l_contrast: string;
};

/** Discrete Laplacian: responds to pits and bumps a few pixels wide (at quarter resolution: coarse texture). */
const LAPLACIAN = [0, 1, 0, 1, -4, 1, 0, 1, 0];

/** Sobel d/dy (rows: up to down) then d/dx (columns: left to right), unnormalised. */
const SOBEL_DY = [-1, -2, -1, 0, 0, 0, 1, 2, 1];
const SOBEL_DX = [-1, 0, 1, -2, 0, 2, -1, 0, 1];

/**
 * `spots` ([n, 1, h, w] bool) marks spot pixels: tone and pores are measured on the skin around them
 * (each output pixel whose filter window comes near a spot is left out), coarse texture on L* with the
 * spots filled in from the skin around them, so that spots count as spots, not as uneven tone, pores or
 * rough texture.
 */
export function addTextureFeatures(g: GraphBuilder, l: string, spots: string): TextureFeatures {
  // The 3×3 blur removes pixel noise and pores, leaving tone changes and lines: [n, 1, h−2, w−2].
  const blurred = g.node('AveragePool', [l], ['l_blurred'], { kernel_shape: [3, 3] });
  const laplacian = g.constant('laplacian_kernel', [1, 1, 3, 3], LAPLACIAN);
  const cap = g.scalar('texture_cap', THRESHOLDS.textureCap);
  const spotMask = g.node('Cast', [spots], ['texture_spot_mask'], { to: FLOAT });
  // Kept weights, aligned with each filter's valid output and widened around every spot.
  const keep = (mask: string, window: number, pad: number, name: string) =>
    g.node(
      'Sub',
      [
        g.scalar(`${name}_one`, 1),
        g.node('MaxPool', [mask], [`${name}_near_spot`], {
          kernel_shape: [window, window],
          pads: [pad, pad, pad, pad],
        }),
      ],
      [name],
    );
  const smoothed = g.node('AveragePool', [l], ['l_smoothed'], { kernel_shape: [TONE_WINDOW, TONE_WINDOW] });
  const clear = keep(spotMask, 9, 4, 'clear_of_spots');

  return {
    l_std: addStandardDeviation(g, smoothed, keep(spotMask, TONE_WINDOW + 2, 1, 'tone_weights')),
    pit_depth: addPitDepth(g, l, cap, clear),
    coarse_energy: addCoarseEnergy(
      g,
      g.node('AveragePool', [addSpotsFilledIn(g, l, clear)], ['l_quarter'], {
        kernel_shape: [4, 4],
        strides: [4, 4],
      }),
      laplacian,
      cap,
    ),
    line_energy: addLineEnergy(g, blurred),
    l_contrast: addContrast(g, blurred),
  };
}

/** Luminance contrast: the standard deviation of every pixel of the 3×3-blurred L*, features and all. */
function addContrast(g: GraphBuilder, blurred: string): string {
  const centred = g.node('Sub', [blurred, g.mean(blurred, 'l_blurred_mean')], ['l_blurred_centred']);
  const squared = g.node('Mul', [centred, centred], ['l_blurred_centred_squared']);
  return g.node('Sqrt', [g.mean(squared, 'l_blurred_variance')], ['l_contrast']);
}

/** Σ(x·w) / Σw per image: [n, 1, h, w] → [n, 1, 1, 1]; zero when every weight is zero. */
function weightedMean(g: GraphBuilder, input: string, weights: string, output: string): string {
  const product = g.node('Mul', [input, weights], [`${output}_weighted`]);
  const total = g.node(
    'Add',
    [g.mean(weights, `${output}_weight_mean`), g.scalar(`${output}_epsilon`, 1e-6)],
    [`${output}_weight_total`],
  );
  return g.node('Div', [g.mean(product, `${output}_product_mean`), total], [output]);
}

/** Weighted population standard deviation, centred first: mean(x²) − mean(x)² loses small variances in float32. */
function addStandardDeviation(g: GraphBuilder, input: string, weights: string): string {
  const centred = g.node(
    'Sub',
    [input, weightedMean(g, input, weights, 'l_smoothed_mean')],
    ['l_smoothed_centred'],
  );
  const squared = g.node('Mul', [centred, centred], ['l_smoothed_centred_squared']);
  const variance = weightedMean(g, squared, weights, 'l_smoothed_variance');
  return g.node('Sqrt', [variance], ['l_std']);
}

/**
 * Pores are small dark pits: the black top-hat with a 3×3 square — the closing of L* (the largest value
 * of each 3×3 neighbourhood, then the smallest of those) minus L* — is how far each pixel lies below the
 * pit-free surface, and is zero on bumps, slopes and anything wider than a pit (tone patches, coarse
 * relief). Each pixel counts up to THRESHOLDS.textureCap, spots and their surroundings left out.
 */
function addPitDepth(g: GraphBuilder, l: string, cap: string, weights: string): string {
  const square = { kernel_shape: [3, 3], pads: [1, 1, 1, 1] };
  const dilated = g.node('MaxPool', [l], ['l_dilated'], square);
  const negated = g.node('Neg', [dilated], ['l_dilated_negated']);
  const closed = g.node('Neg', [g.node('MaxPool', [negated], ['l_closed_negated'], square)], ['l_closed']);
  const depth = g.node('Sub', [closed, l], ['pit_depth_map']);
  const capped = g.node('Min', [depth, cap], ['pit_depth_capped']);
  return weightedMean(g, capped, weights, 'pit_depth');
}

/**
 * L* with each spot and its surroundings (`clear` is 0 there) replaced by the mean of the clear skin
 * within 15×15 around it — L* itself where none is that close — so that coarse texture sees the skin
 * rather than the spots and their soft halos, which a mask at quarter resolution only partly covered.
 */
function addSpotsFilledIn(g: GraphBuilder, l: string, clear: string): string {
  const window = { kernel_shape: [15, 15], pads: [7, 7, 7, 7], count_include_pad: 0 };
  const sum = g.node('AveragePool', [g.node('Mul', [l, clear], ['l_clear'])], ['l_clear_around'], window);
  const share = g.node('AveragePool', [clear], ['clear_share_around'], window);
  const least = g.scalar('fill_least_share', 1e-3);
  const around = g.node(
    'Div',
    [sum, g.node('Max', [share, least], ['clear_share_kept'])],
    ['l_around_spots'],
  );
  const fillable = g.node('Greater', [share, least], ['clear_skin_around']);
  const fill = g.node('Where', [fillable, around, l], ['l_fill']);
  const nearSpot = g.node('Less', [clear, g.scalar('clear_half', 0.5)], ['near_a_spot']);
  return g.node('Where', [nearSpot, fill, l], ['l_spots_filled']);
}

/**
 * Coarse texture: mean |Laplacian| of L* at quarter resolution, each pixel counted up to
 * THRESHOLDS.textureCap (so the edges of a few high-contrast spots weigh little against texture spread
 * over the patch) and only above THRESHOLDS.coarseFloor (JPEG's 8×8 blocks fall in this band at a low
 * amplitude).
 */
function addCoarseEnergy(g: GraphBuilder, quarter: string, kernel: string, cap: string): string {
  const response = g.node('Conv', [quarter, kernel], ['coarse_laplacian']);
  const magnitude = g.node('Abs', [response], ['coarse_laplacian_abs']);
  const capped = g.node('Min', [magnitude, cap], ['coarse_laplacian_capped']);
  const floor = g.scalar('coarse_floor', THRESHOLDS.coarseFloor);
  const kept = g.node(
    'Relu',
    [g.node('Sub', [capped, floor], ['coarse_above_floor'])],
    ['coarse_laplacian_kept'],
  );
  return g.mean(kept, 'coarse_energy');
}

/**
 * Horizontal lines make L* change down the patch but not across it, so vertical gradient energy minus
 * horizontal gradient energy isolates them; evenly textured skin scores about zero, vertical structures
 * (clipped by Relu) exactly zero.
 */
function addLineEnergy(g: GraphBuilder, blurred: string): string {
  const sobel = g.constant('sobel_dy_dx_kernels', [2, 1, 3, 3], [...SOBEL_DY, ...SOBEL_DX]);
  const gradients = g.node('Conv', [blurred, sobel], ['l_gradients']);
  const magnitudes = g.node('Abs', [gradients], ['l_gradients_abs']);
  const energies = g.mean(magnitudes, 'l_gradient_energies');
  const dyMinusDx = g.constant('dy_minus_dx_weights', [1, 2, 1, 1], [1, -1]);
  const difference = g.node('Conv', [energies, dyMinusDx], ['line_energy_unclipped']);
  return g.node('Relu', [difference], ['line_energy']);
}
