/**
 * sRGB → CIELAB (D65) inside the graph, per pixel. The colour features and the texture features all
 * work on L*, a*, b*: lightness and opponent colours are closer to how skin tone, redness and shadows
 * are perceived than raw RGB.
 */
import type { GraphBuilder } from './graph-builder.ts';

/**
 * The CIELAB image's channels `l`, `a`, `b`, each [n, 1, h, w]; `linear` is the linear-light RGB they were
 * computed from, [n, 3, h, w].
 */
export type CielabTensors = { l: string; a: string; b: string; linear: string };

/** Linear sRGB → CIE XYZ, rows X, Y, Z (IEC 61966-2-1 primaries, D65 white). */
const SRGB_TO_XYZ = [
  [0.4124564, 0.3575761, 0.1804375],
  [0.2126729, 0.7151522, 0.072175],
  [0.0193339, 0.119192, 0.9503041],
] as const;

/** The D65 reference white, X, Y, Z. */
const D65_WHITE = [0.95047, 1.0, 1.08883] as const;

/**
 * Adds the conversion of `srgb` ([n, 3, h, w], 0..1) and returns the CIELAB tensors: L* = 116·f(Y/Yn) − 16,
 * a* = 500·(f(X/Xn) − f(Y/Yn)), b* = 200·(f(Y/Yn) − f(Z/Zn)). Each channel's f is a chain of its own, so a
 * cut graph that reads L* alone companding Y alone, one that reads no b* no Z (measurer.ts): f is the
 * graph's costliest arithmetic per pixel (its `Log`). a* and b* are 1×1 convolutions of their two f's, the
 * same products and sums as the one 3×3 convolution of all three f's they were before.
 */
export function addCielab(g: GraphBuilder, srgb: string): CielabTensors {
  const linear = addSrgbToLinear(g, srgb);

  // Dividing each row by the white point folds the normalisation X/Xn, Y/Yn, Z/Zn into the matrix.
  const xyzWeights = SRGB_TO_XYZ.flatMap((row, i) => row.map((value) => value / D65_WHITE[i]!));
  const xyz = g.node(
    'Conv',
    [linear, g.constant('xyz_over_white_weights', [3, 3, 1, 1], xyzWeights)],
    ['xyz_over_white'],
  );
  g.node('Split', [xyz], ['x_over_white', 'y_over_white', 'z_over_white'], { axis: 1 });
  const [fx, fy, fz] = (['x', 'y', 'z'] as const).map((c) =>
    addLabCompanding(g, `${c}_over_white`, `lab_f_${c}`),
  );
  const l = g.node(
    'Add',
    [g.node('Mul', [fy!, g.scalar('lab_l_scale', 116)], ['l_scaled']), g.scalar('lab_l_offset', -16)],
    ['l_star'],
  );
  const difference = (first: string, second: string, scale: number, name: string) =>
    g.node(
      'Conv',
      [
        g.node('Concat', [first, second], [`${name}_f_pair`], { axis: 1 }),
        g.constant(`${name}_weights`, [1, 2, 1, 1], [scale, -scale]),
      ],
      [name],
    );
  return { l, a: difference(fx!, fy!, 500, 'a_star'), b: difference(fy!, fz!, 200, 'b_star'), linear };
}

/**
 * The sRGB transfer function undone: c/12.92 in the linear toe, ((c + 0.055)/1.055)^2.4 above it. Powers
 * here are Exp(k·Log(x)): onnxruntime vectorises both, where its Pow takes one element at a time (about
 * twice as long for the same values, to float32 rounding).
 */
function addSrgbToLinear(g: GraphBuilder, srgb: string): string {
  const inToe = g.node('LessOrEqual', [srgb, g.scalar('srgb_toe_limit', 0.04045)], ['srgb_in_toe']);
  const toe = g.node('Div', [srgb, g.scalar('srgb_toe_slope', 12.92)], ['linear_toe']);
  const shifted = g.node('Add', [srgb, g.scalar('srgb_offset', 0.055)], ['srgb_shifted']);
  const scaled = g.node('Div', [shifted, g.scalar('srgb_scale', 1.055)], ['srgb_scaled']);
  const logScaled = g.node('Log', [scaled], ['srgb_scaled_log']);
  const curveLog = g.node('Mul', [logScaled, g.scalar('srgb_gamma', 2.4)], ['linear_curve_log']);
  const curve = g.node('Exp', [curveLog], ['linear_curve']);
  return g.node('Where', [inToe, toe, curve], ['linear_rgb']);
}

/**
 * CIELAB's f(t): the cube root above (6/29)³ ≈ 0.008856, a straight line below it so that f stays
 * finite-sloped near black. Where evaluates both branches; the unused one is discarded.
 */
function addLabCompanding(g: GraphBuilder, t: string, name: string): string {
  const cubic = g.node('Greater', [t, g.scalar(`${name}_epsilon`, 0.008856)], [`${name}_above_epsilon`]);
  const logT = g.node('Log', [t], [`${name}_log`]);
  const rootLog = g.node('Mul', [logT, g.scalar(`${name}_one_third`, 1 / 3)], [`${name}_cube_root_log`]);
  const root = g.node('Exp', [rootLog], [`${name}_cube_root`]);
  const sloped = g.node('Mul', [t, g.scalar(`${name}_kappa_slope`, 7.787)], [`${name}_sloped`]);
  const line = g.node('Add', [sloped, g.scalar(`${name}_line_offset`, 16 / 116)], [`${name}_line`]);
  return g.node('Where', [cubic, root, line], [name]);
}
