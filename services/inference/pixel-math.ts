/**
 * Small numeric helpers the analysis shares: the sRGB transfer curve, luminance and CIELAB lightness, and a
 * selection without sorting.
 */

/** An sRGB value (0–1) in linear light. */
export const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
/** A value in linear light (0–1) as sRGB. */
export const toSrgb = (l: number) => (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055);

/** sRGB's luminance weights (D65), R, G, B: Y of linear light, as the measures graph reads it (cielab.ts). */
export const LUMINANCE = [0.2126729, 0.7151522, 0.072175] as const;
/** The luminance Y (0–1) of linear R, G, B. */
export const luminanceOf = (r: number, g: number, b: number) =>
  LUMINANCE[0] * r + LUMINANCE[1] * g + LUMINANCE[2] * b;

const EPSILON = 216 / 24389;
const KAPPA = 24389 / 27;
/** CIELAB L* (0–100) of luminance Y (0–1, white 1). */
export const lightnessOf = (y: number) => (y > EPSILON ? 116 * Math.cbrt(y) - 16 : KAPPA * y);
/** The luminance Y of CIELAB lightness L* (lightnessOf undone). */
export const luminanceOfLightness = (l: number) => (l > KAPPA * EPSILON ? ((l + 16) / 116) ** 3 : l / KAPPA);

/** The k-th smallest of `values` (from 0), as `values.sort()[k]` gives it, reordering them (Hoare's select). */
export function kthSmallest(values: Float32Array, k: number): number {
  // Plain variables and a temporary for the swap: the same steps as array destructuring, which V8 did
  // not compile away here (1.7× slower on a 64×64 patch).
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swapped = values[i]!;
        values[i] = values[j]!;
        values[j] = swapped;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return values[k]!;
}
