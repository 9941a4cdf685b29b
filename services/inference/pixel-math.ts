/** Small numeric helpers the analysis shares: the sRGB transfer curve and a selection without sorting. */

/** An sRGB value (0–1) in linear light. */
export const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
/** A value in linear light (0–1) as sRGB. */
export const toSrgb = (l: number) => (l <= 0.0031308 ? 12.92 * l : 1.055 * l ** (1 / 2.4) - 0.055);

/** The k-th smallest of `values` (from 0), as `values.sort()[k]` gives it, reordering them (Hoare's select). */
export function kthSmallest(values: Float32Array, k: number): number {
  let [lo, hi] = [0, values.length - 1];
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let [i, j] = [lo, hi];
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        [values[i], values[j]] = [values[j]!, values[i]!];
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
