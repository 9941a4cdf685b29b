/**
 * Filters the skin-measures graph is built from: Gaussian blurs, square maxima, closings and weighted
 * means of [n, 1, h, w] planes. Linear filters are zero-padded, each blur divided by the same blur of
 * its weights (or of ones) so that only pixels inside the patch count; MaxPool padding never wins a max.
 */
import { PATCH_SIZE } from './features.ts';
import type { GraphBuilder } from './graph-builder.ts';

const ONES = Array<number>(PATCH_SIZE * PATCH_SIZE).fill(1);

/** Σ(x·w) / Σw per image: [n, 1, h, w] → [n, 1, 1, 1]; zero when every weight is zero. */
export function weightedMean(g: GraphBuilder, input: string, weights: string, output: string): string {
  const product = g.node('Mul', [input, weights], [`${output}_weighted`]);
  const total = g.node(
    'Add',
    [g.mean(weights, `${output}_weight_mean`), g.scalar(`${output}_epsilon`, 1e-6)],
    [`${output}_weight_total`],
  );
  return g.node('Div', [g.mean(product, `${output}_product_mean`), total], [output]);
}

/**
 * The closing of `input` with a window×window square, same size: the largest value of each neighbourhood,
 * then the smallest of those (a MaxPool of the negation).
 */
export function addClosing(g: GraphBuilder, input: string, window: number, name: string): string {
  const dilated = addSquareMax(g, input, window, `${name}_dilated`);
  const negated = g.node('Neg', [dilated], [`${name}_dilated_negated`]);
  return g.node('Neg', [addSquareMax(g, negated, window, `${name}_closed_negated`)], [`${name}_closed`]);
}

/**
 * The opening of `input` with a window×window square, same size: the smallest value of each neighbourhood
 * (a MaxPool of the negation, negated), then the largest of those. The closing of the negation, negated,
 * without its two negations in a row.
 */
export function addOpening(g: GraphBuilder, input: string, window: number, name: string): string {
  const negated = g.node('Neg', [input], [`${name}_negated`]);
  const eroded = g.node(
    'Neg',
    [addSquareMax(g, negated, window, `${name}_eroded_negated`)],
    [`${name}_eroded`],
  );
  return addSquareMax(g, eroded, window, `${name}_opened`);
}

/**
 * The largest value of each window×window neighbourhood, same size; padding never wins a max. One square
 * MaxPool, not a row's then a column's: the same extremes, and onnxruntime's pooling costs about the same
 * per output pixel whatever the window up to 13×13, so two passes took longer (docs/inference.md).
 */
export function addSquareMax(g: GraphBuilder, input: string, window: number, out: string): string {
  const half = (window - 1) / 2;
  return g.node('MaxPool', [input], [out], {
    kernel_shape: [window, window],
    pads: [half, half, half, half],
  });
}

/** A Gaussian blur of σ pixels divided by the same blur of ones: the Gaussian mean of the pixels inside the patch. */
export function addNormalisedBlur(g: GraphBuilder, input: string, sigma: number, name: string): string {
  const ones = g.constant(`${name}_ones`, [1, 1, PATCH_SIZE, PATCH_SIZE], ONES);
  return g.node(
    'Div',
    [addGaussianBlur(g, input, sigma, name), addGaussianConv(g, ones, sigma, `${name}_ones`)],
    [`${name}_smoothed`],
  );
}

/**
 * A Gaussian blur of σ pixels, same size: two 1-D passes (rows, then columns) of radius ⌈3σ⌉, zero-padded.
 * Dividing by the same blur of the weights (or of ones) undoes the padding's pull towards 0. Each pass is
 * a MatMul by the PATCH_SIZE × PATCH_SIZE matrix of the taps, zero outside its band (what the padding
 * read): the same products as a Conv, and several times faster in onnxruntime (a Conv of one channel
 * expands its input first). The band is symmetric, so the rows' pass (input × matrix: input column j to
 * output column i) and the columns' (matrix × input: input row j to output row i) share one matrix per σ.
 */
export function addGaussianBlur(g: GraphBuilder, input: string, sigma: number, name: string): string {
  const matrix = gaussianMatrix(g, sigma);
  const across = g.node('MatMul', [input, matrix], [`${name}_blurred_across`]);
  return g.node('MatMul', [matrix, across], [`${name}_blurred`]);
}

const GAUSSIAN_MATRICES = new WeakMap<GraphBuilder, Map<number, string>>();

/** The banded matrix of a Gaussian of σ pixels, one constant per σ and graph. */
function gaussianMatrix(g: GraphBuilder, sigma: number): string {
  const made = GAUSSIAN_MATRICES.get(g) ?? new Map<number, string>();
  GAUSSIAN_MATRICES.set(g, made);
  const existing = made.get(sigma);
  if (existing !== undefined) return existing;
  const kernel = gaussianTaps(sigma);
  const radius = (kernel.length - 1) / 2;
  const values = Array.from({ length: PATCH_SIZE * PATCH_SIZE }, (_, k) => {
    const offset = (k % PATCH_SIZE) - Math.floor(k / PATCH_SIZE);
    return Math.abs(offset) <= radius ? kernel[offset + radius]! : 0;
  });
  const name = g.constant(`gauss_band_${String(sigma).replace('.', '_')}`, [PATCH_SIZE, PATCH_SIZE], values);
  made.set(sigma, name);
  return name;
}

/** addGaussianBlur as two 1-D convolutions, for inputs of any size (the tone's blocks). */
export function addGaussianConv(g: GraphBuilder, input: string, sigma: number, name: string): string {
  const kernel = gaussianTaps(sigma);
  const radius = (kernel.length - 1) / 2;
  const across = g.node(
    'Conv',
    [input, g.constant(`${name}_gauss_across`, [1, 1, 1, kernel.length], kernel)],
    [`${name}_blurred_across`],
    { pads: [0, radius, 0, radius] },
  );
  return g.node(
    'Conv',
    [across, g.constant(`${name}_gauss_down`, [1, 1, kernel.length, 1], kernel)],
    [`${name}_blurred`],
    { pads: [radius, 0, radius, 0] },
  );
}

/** The taps of a Gaussian of σ pixels, radius ⌈3σ⌉, summing to 1. */
function gaussianTaps(sigma: number): number[] {
  const radius = Math.ceil(3 * sigma);
  const taps = Array.from({ length: 2 * radius + 1 }, (_, i) =>
    Math.exp(-((i - radius) ** 2) / (2 * sigma * sigma)),
  );
  const total = taps.reduce((sum, t) => sum + t, 0);
  return taps.map((t) => t / total);
}
