/**
 * Operations on a batch of square patches, [n, 1, PATCH_SIZE, PATCH_SIZE], that the measures graph uses
 * in more than one place: a patch less its best plane, its median or k-th largest value, some of its rows.
 */
import { PATCH_SIZE } from './features.ts';
import type { GraphBuilder } from './graph-builder.ts';

/**
 * Each patch less its best plane (least squares in x and y): a gradient of light across the patch — the
 * nose lit from one side — is taken away, a compact highlight is left. x and y are centred and scaled to
 * a mean square of 1 over the patch, so the coefficient of each is the patch's mean of value × it.
 */
export function addLessPlane(g: GraphBuilder, input: string, output: string): string {
  const centre = (PATCH_SIZE - 1) / 2;
  const scale = Math.sqrt((PATCH_SIZE * PATCH_SIZE - 1) / 12);
  const axis = (along: (x: number, y: number) => number) =>
    Array.from({ length: PATCH_SIZE * PATCH_SIZE }, (_, i) =>
      along(i % PATCH_SIZE, Math.floor(i / PATCH_SIZE)),
    );
  const dims = [1, 1, PATCH_SIZE, PATCH_SIZE];
  const across = g.constant(
    `${output}_x`,
    dims,
    axis((x) => (x - centre) / scale),
  );
  const down = g.constant(
    `${output}_y`,
    dims,
    axis((_, y) => (y - centre) / scale),
  );
  const along = (basis: string, name: string) =>
    g.node(
      'Mul',
      [g.mean(g.node('Mul', [input, basis], [`${name}_products`]), `${name}_slope`), basis],
      [name],
    );
  const plane = g.node(
    'Add',
    [along(across, `${output}_across`), along(down, `${output}_down`)],
    [`${output}_plane`],
  );
  return g.node('Sub', [input, plane], [output]);
}

/**
 * The median of each patch, [n, 1, 1, 1]: of its PATCH_SIZE² values, the (PATCH_SIZE²/2)-th largest.
 */
export function addMedian(g: GraphBuilder, input: string, output: string): string {
  return addKthLargest(g, input, (PATCH_SIZE * PATCH_SIZE) / 2, output);
}

/** Columns `from` to `to` (exclusive) of each patch, [n, 1, h, to − from]. */
export function addColumns(g: GraphBuilder, input: string, from: number, to: number, output: string): string {
  return g.node(
    'Slice',
    [input, g.ints(`${output}_from`, [from]), g.ints(`${output}_to`, [to]), g.ints(`${output}_axes`, [3])],
    [output],
  );
}

/** Rows `from` to `to` (exclusive) of each patch, [n, 1, to − from, w]. */
export function addRows(g: GraphBuilder, input: string, from: number, to: number, output: string): string {
  return g.node(
    'Slice',
    [input, g.ints(`${output}_from`, [from]), g.ints(`${output}_to`, [to]), g.ints(`${output}_axes`, [2])],
    [output],
  );
}

/** The k-th largest of each patch's values, [n, 1, 1, 1]: TopK, then the least of those. */
export function addKthLargest(g: GraphBuilder, input: string, k: number, output: string): string {
  const flat = g.node('Reshape', [input, g.ints(`${output}_flat_shape`, [0, -1])], [`${output}_flat`]);
  const count = g.ints(`${output}_k`, [k]);
  // Unsorted: the least of the k largest is the same, and onnxruntime then only partitions (nth_element).
  const upper = g.node('TopK', [flat, count], [`${output}_upper`, `${output}_upper_indices`], {
    axis: 1,
    sorted: 0,
  });
  const least = g.node('ReduceMin', [upper], [`${output}_least`], { axes: [1], keepdims: 1 });
  return g.node('Reshape', [least, g.ints(`${output}_shape`, [-1, 1, 1, 1])], [output]);
}

/**
 * How much each pixel of `l` (L*) is the patch's skin, 0..1, by its linear luminance Y relative to the
 * patch's median (`median`, L*): brows, lashes, pupils, nostrils (Y under SKIN_SHARE.darkFrom of the
 * median) and the whites of the eyes (over SKIN_SHARE.lightTo) are not, with a ramp of SKIN_SHARE.ramp
 * (a share of the median's Y) inside each bound; `share` gives other bounds. A ratio of linear luminance, so
 * a darker skin at its own lightness is judged the same (docs/inference.md, "Skin tone alone").
 */
export function addSkinWeight(
  g: GraphBuilder,
  l: string,
  median: string,
  name: string,
  share: SkinShare = SKIN_SHARE,
): string {
  const y = addLuminanceRatio(g, l, median, name);
  const ramp = g.scalar(`${name}_ramp`, 1 / share.ramp);
  const above = clipToUnit(
    g,
    g.node(
      'Mul',
      [g.node('Sub', [y, g.scalar(`${name}_dark_from`, share.darkFrom)], [`${name}_over_dark`]), ramp],
      [`${name}_above_raw`],
    ),
    `${name}_above`,
  );
  return g.node('Mul', [above, addUnderLight(g, y, ramp, name, share)], [name]);
}

/**
 * The upper bound of addSkinWeight alone, named `${name}_below`: 1 up to `share.lightTo − share.ramp` times
 * the median's linear luminance, 0 from `share.lightTo` (shine), darker pixels all kept.
 */
export function addBelowLight(
  g: GraphBuilder,
  l: string,
  median: string,
  name: string,
  share: SkinShare = SKIN_SHARE,
): string {
  const y = addLuminanceRatio(g, l, median, name);
  return addUnderLight(g, y, g.scalar(`${name}_ramp`, 1 / share.ramp), name, share);
}

/** Each pixel's linear luminance relative to the median's: ((L* + 16) / (median + 16))³. */
function addLuminanceRatio(g: GraphBuilder, l: string, median: string, name: string): string {
  const offset = g.scalar(`${name}_offset`, 16);
  const ratio = g.node(
    'Div',
    [g.node('Add', [l, offset], [`${name}_l16`]), g.node('Add', [median, offset], [`${name}_median16`])],
    [`${name}_cube_root_ratio`],
  );
  return g.node('Mul', [g.node('Mul', [ratio, ratio], [`${name}_ratio2`]), ratio], [`${name}_ratio`]);
}

function addUnderLight(g: GraphBuilder, y: string, ramp: string, name: string, share: SkinShare): string {
  return clipToUnit(
    g,
    g.node(
      'Mul',
      [g.node('Sub', [g.scalar(`${name}_light_to`, share.lightTo), y], [`${name}_under_light`]), ramp],
      [`${name}_below_raw`],
    ),
    `${name}_below`,
  );
}

function clipToUnit(g: GraphBuilder, x: string, out: string): string {
  return g.node('Clip', [x, g.scalar(`${out}_lo`, 0), g.scalar(`${out}_hi`, 1)], [out]);
}

/** Bounds of the skin in a patch, as shares of the median's linear luminance (addSkinWeight). */
export interface SkinShare {
  readonly darkFrom: number;
  readonly lightTo: number;
  readonly ramp: number;
}
export const SKIN_SHARE: SkinShare = { darkFrom: 0.5, lightTo: 2.2, ramp: 0.2 };

/** Σw(x − x̄_w)² / Σw per image, x̄_w the weighted mean: [n, 1, h, w] → [n, 1, 1, 1]. */
export function addWeightedVariance(g: GraphBuilder, x: string, w: string, name: string): string {
  const mean = (input: string, out: string) => {
    const total = g.node('Add', [g.mean(w, `${out}_w`), g.scalar(`${out}_eps`, 1e-6)], [`${out}_wt`]);
    return g.node('Div', [g.mean(g.node('Mul', [input, w], [`${out}_xw`]), `${out}_xwm`), total], [out]);
  };
  const centred = g.node('Sub', [x, mean(x, `${name}_mean`)], [`${name}_centred`]);
  return mean(g.node('Mul', [centred, centred], [`${name}_sq`]), name);
}
