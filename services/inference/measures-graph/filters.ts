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
 * The largest value of each window×window neighbourhood, same size: a row then a column of the same
 * length, which gives the same extreme for fewer comparisons; padding never wins a max.
 */
export function addSquareMax(g: GraphBuilder, input: string, window: number, out: string): string {
  const half = (window - 1) / 2;
  return g.node(
    'MaxPool',
    [g.node('MaxPool', [input], [`${out}_across`], { kernel_shape: [1, window], pads: [0, half, 0, half] })],
    [out],
    { kernel_shape: [window, 1], pads: [half, 0, half, 0] },
  );
}

/** A Gaussian blur of σ pixels divided by the same blur of ones: the Gaussian mean of the pixels inside the patch. */
export function addNormalisedBlur(g: GraphBuilder, input: string, sigma: number, name: string): string {
  const ones = g.constant(`${name}_ones`, [1, 1, PATCH_SIZE, PATCH_SIZE], ONES);
  return g.node(
    'Div',
    [addGaussianBlur(g, input, sigma, name), addGaussianBlur(g, ones, sigma, `${name}_ones`)],
    [`${name}_smoothed`],
  );
}

/**
 * A Gaussian blur of σ pixels, same size: two 1-D convolutions (rows, then columns) of radius ⌈3σ⌉,
 * zero-padded. Dividing by the same blur of the weights (or of ones) undoes the padding's pull towards 0.
 */
export function addGaussianBlur(g: GraphBuilder, input: string, sigma: number, name: string): string {
  const radius = Math.ceil(3 * sigma);
  const taps = Array.from({ length: 2 * radius + 1 }, (_, i) =>
    Math.exp(-((i - radius) ** 2) / (2 * sigma * sigma)),
  );
  const total = taps.reduce((sum, t) => sum + t, 0);
  const kernel = taps.map((t) => t / total);
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
