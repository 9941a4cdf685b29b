/**
 * Tone: patches of skin lighter or darker than the rest, on the scale of pigment patches. A cheek is a
 * curved surface, so its light and shade change smoothly across it; tone patches are smaller than the
 * patch. L* is smoothed (pores, relief and pixel noise out), the smooth light and shade — the best
 * cubic surface through it — taken away, and what is left is the tone. Every feature is [n, 1, 1, 1].
 */
import { PATCH_SIZE, TONE_SIGMA } from './features.ts';
import { addGaussianConv, weightedMean } from './filters.ts';
import type { GraphBuilder } from './graph-builder.ts';
import { addBelowLight } from './patch-ops.ts';

export type ToneFeatures = { l_std: string };

/** Tone is measured on blocks of TONE_BLOCK×TONE_BLOCK pixels: SIDE×SIDE of them. */
const TONE_BLOCK = 4;
const SIDE = PATCH_SIZE / TONE_BLOCK;
/**
 * The light and shade's surface: a polynomial in x and y of at most this degree. A quadratic (degree 2,
 * until skin-measures-34.0.0) left a shadow's soft edge, the curve of a cheek raised by a smile and the
 * fold beside it as tone: on the reference faces the spread between photos of one person was 0.90 of that
 * between people; 0.76 with the cubic, 0.91 with degree 4 (docs/inference.md, "Uneven tone: a cubic
 * surface, the mean deviation").
 */
const TONE_DEGREE = 3;
/**
 * Shine is not tone: a pixel counts fully up to SKIN_SHARE.lightTo − SKIN_SHARE.ramp times the linear
 * luminance of its patch's median, not at all from SKIN_SHARE.lightTo (the skin weight's upper bound alone,
 * patch-ops.ts addBelowLight; its nodes are named after SHINE). Under hard light a cheek's sheen is a highlight several times the skin around it, which the
 * cubic surface leaves as a patch: one reference person's cheek in shade read 2.36 with the highlight and
 * their other photos 0.23–1.42 (docs/inference.md, "Uneven tone: shine is not tone"). A tone patch is far
 * less than that (the uneven-tone edit's light patch about 1.4 times).
 */
const SHINE = 'tone_shine';

/**
 * How much of the clear skin's mean L* each block's smoothed L* holds, as if that many blocks' worth of skin
 * at the mean lay under the blur: next to nothing where skin is near (the set's values move by a
 * thousandth), all of T where none is.
 */
const TONE_PRIOR_SHARE = 1e-3;

/** √(π/2): the mean absolute deviation times this is the standard deviation of a normal spread. */
const MEAN_DEVIATION_TO_SD = Math.sqrt(Math.PI / 2);

/**
 * The discrete polynomials of degree 0 to `most` over `size` points, orthonormal (Gram–Schmidt in
 * float64): [size, most + 1], row-major. P·Pᵀ projects a row of values on its best polynomial of that degree.
 */
export function orthonormalPolynomials(size: number, most: number): number[][] {
  const centre = (size - 1) / 2;
  const basis: number[][] = [];
  for (let degree = 0; degree <= most; degree++) {
    let v = Array.from({ length: size }, (_, x) => ((x - centre) / size) ** degree);
    for (const q of basis) {
      const dot = v.reduce((s, vi, i) => s + vi * q[i]!, 0);
      v = v.map((vi, i) => vi - dot * q[i]!);
    }
    const norm = Math.hypot(...v);
    basis.push(v.map((vi) => vi / norm));
  }
  return Array.from({ length: size }, (_, x) => basis.map((q) => q[x]!));
}

/**
 * The spread of T − Q (its mean absolute deviation, scaled to read as a standard deviation) over blocks of TONE_BLOCK² pixels, each weighted by its share of skin
 * clear of spots (each pixel weighted by 1 less the largest spot degree in its 9×9 neighbourhood, so a
 * contrast near the spot threshold, which re-encoding tips either way, moves it a little: with a yes-or-no
 * mask one pixel took its 81 neighbours in or out), of shine (addBelowLight, against `lMedian`, the
 * patch's median L*) and times `weights` (features.ts TONE_WEIGHTS_NAME): T is the clear skin's L* per block,
 * smoothed by a Gaussian of TONE_SIGMA pixels; Q is the polynomial surface in x and y of degree at most
 * TONE_DEGREE (1, x, y, x², xy, y², x³, x²y, xy², y³) that fits T best — the light and shade of the cheek's
 * curve and of the light across it — found by projection on separable orthonormal polynomials:
 * C = Pᵀ·T·P, the terms of degree above TONE_DEGREE zeroed,
 * Q = P·C·Pᵀ, four small MatMuls.
 */
export function addToneFeatures(
  g: GraphBuilder,
  l: string,
  spotDegree: string,
  lMedian: string,
  weights: string,
): ToneFeatures {
  // Each pixel weighs 1 less the largest spot degree in its 9×9 neighbourhood: a spot and its surroundings
  // are left out, a pixel near a fold or a faint spot only in part; shine is left out too, and what
  // `weights` leaves out (the smile's fold: tone-weights.ts).
  const clear = g.node(
    'Mul',
    [
      g.node(
        'Sub',
        [
          g.scalar('tone_one', 1),
          g.node('MaxPool', [spotDegree], ['tone_near_spot'], { kernel_shape: [9, 9], pads: [4, 4, 4, 4] }),
        ],
        ['tone_clear_of_spots'],
      ),
      g.node('Mul', [addBelowLight(g, l, lMedian, SHINE), weights], ['tone_below_shine_weighted']),
    ],
    ['tone_clear'],
  );
  // Tone is smooth: measured on 4×4 blocks (16×16), each block's L* the mean of its clear pixels.
  const block = { kernel_shape: [TONE_BLOCK, TONE_BLOCK], strides: [TONE_BLOCK, TONE_BLOCK] };
  const lSum = g.node('AveragePool', [g.node('Mul', [l, clear], ['tone_l_clear'])], ['tone_l_blocks'], block);
  const share = g.node('AveragePool', [clear], ['tone_clear_blocks'], block);
  // Where little clear skin is near (a cheek's corner the weights leave out), T tends to the clear skin's
  // mean L*, not to 0: (blur of L* + k·mean) / (blur of the share + k). With the share floored instead (at
  // 10⁻³, until skin-measures-38.0.0), a corner left out beyond the blur's reach read 0 and bent the surface.
  const prior = g.scalar('tone_prior_share', TONE_PRIOR_SHARE);
  const clearMean = g.node(
    'Div',
    [
      g.mean(lSum, 'tone_l_blocks_mean'),
      g.node(
        'Max',
        [g.mean(share, 'tone_share_mean'), g.scalar('tone_least_share', 1e-6)],
        ['tone_share_kept'],
      ),
    ],
    ['tone_clear_mean'],
  );
  const smoothed = g.node(
    'Div',
    [
      g.node(
        'Add',
        [
          addGaussianConv(g, lSum, TONE_SIGMA / TONE_BLOCK, 'tone_l'),
          g.node('Mul', [clearMean, prior], ['tone_prior_l']),
        ],
        ['tone_l_with_prior'],
      ),
      g.node(
        'Add',
        [addGaussianConv(g, share, TONE_SIGMA / TONE_BLOCK, 'tone_clear_share'), prior],
        ['tone_clear_share_with_prior'],
      ),
    ],
    ['tone_smoothed'],
  );
  const rows = orthonormalPolynomials(SIDE, TONE_DEGREE);
  const terms = TONE_DEGREE + 1;
  const degrees = Array.from({ length: terms }, (_, k) => k);
  const p = g.constant('tone_polynomials', [SIDE, terms], rows.flat());
  const pT = g.constant(
    'tone_polynomials_transposed',
    [terms, SIDE],
    degrees.flatMap((k) => rows.map((row) => row[k]!)),
  );
  // C[i][j] weighs the polynomial of degree i down the patch times that of degree j across it.
  const coefficients = g.node(
    'MatMul',
    [g.node('MatMul', [pT, smoothed], ['tone_coefficients_down']), p],
    ['tone_coefficients'],
  );
  const surfaceTerms = g.constant(
    'tone_surface_terms',
    [terms, terms],
    degrees.flatMap((i) => degrees.map((j) => (i + j <= TONE_DEGREE ? 1 : 0))),
  );
  const kept = g.node('Mul', [coefficients, surfaceTerms], ['tone_surface_coefficients']);
  const surface = g.node(
    'MatMul',
    [g.node('MatMul', [p, kept], ['tone_surface_down']), pT],
    ['tone_light_and_shade'],
  );
  const residual = g.node('Sub', [smoothed, surface], ['tone_residual']);
  const centred = g.node(
    'Sub',
    [residual, weightedMean(g, residual, share, 'tone_residual_mean')],
    ['tone_residual_centred'],
  );
  // The mean absolute deviation, not the standard deviation: a narrow band that the surface cannot follow
  // (a fold, a shadow's edge) weighs by its depth, not its square (0.76 → 0.72 on the reference faces).
  const deviation = g.node('Abs', [centred], ['tone_residual_deviation']);
  return {
    l_std: g.node(
      'Mul',
      [
        weightedMean(g, deviation, share, 'tone_mean_deviation'),
        g.scalar('tone_deviation_to_sd', MEAN_DEVIATION_TO_SD),
      ],
      ['l_std'],
    ),
  };
}
