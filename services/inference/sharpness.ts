/**
 * How sharp a face is, independent of its contrast (issue 13): in each of four directions, the energy of the
 * luma's second difference over that of its first (central) difference. A blur of σ pixels along a
 * direction widens the edges there and the ratio falls as about 1/σ²; scaling the contrast — less light, a
 * darker skin — scales both alike and leaves it. The variance of the Laplacian, read before, fell with the
 * contrast: a darker skin or a dimmer photo read as less sharp (docs/inference.md, "Too blurry").
 */

/** edgeRow's sums: per direction, the squared second and first differences (it runs without awaiting). */
const EDGES = new Float64Array(8);

/**
 * The sharpness of a size×size luma plane: over the direction its edges are widest in (a motion blur widens
 * them along one), 100 × the second differences' energy over the central differences' (f(x+1) − f(x−1)) / 2.
 * The diagonals' step is √2 pixels, so their ratio is halved. 0 for a flat plane.
 */
export function sharpness(luma: Float32Array, size: number): number {
  const edges = EDGES.fill(0);
  for (let y = 1; y < size - 1; y++) edgeRow(luma, y * size, size, edges);
  let least = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 4; k++) {
    const ratio = edges[2 * k + 1]! > 0 ? edges[2 * k]! / edges[2 * k + 1]! : 0;
    least = Math.min(least, k < 2 ? ratio : ratio / 2);
  }
  // edgeRow's slope is twice the central difference: ×4 to read against it.
  return 400 * least;
}

/**
 * Adds to `sums`, for each direction (across, down, down-right, down-left), the squared second difference
 * and the squared doubled central difference of the inner pixels of the row at `start`. One pass reads each
 * pixel's eight neighbours once; a function of its own, called for every row, so that V8 compiles the loop
 * whole (see quality.ts, SUMS).
 */
function edgeRow(luma: Float32Array, start: number, size: number, sums: Float64Array): void {
  let curveAcross = sums[0]!;
  let slopeAcross = sums[1]!;
  let curveDown = sums[2]!;
  let slopeDown = sums[3]!;
  let curveFall = sums[4]!;
  let slopeFall = sums[5]!;
  let curveRise = sums[6]!;
  let slopeRise = sums[7]!;
  for (let i = start + 1; i < start + size - 1; i++) {
    const twice = 2 * luma[i]!;
    const left = luma[i - 1]!;
    const right = luma[i + 1]!;
    const up = luma[i - size]!;
    const down = luma[i + size]!;
    const upLeft = luma[i - size - 1]!;
    const downRight = luma[i + size + 1]!;
    const upRight = luma[i - size + 1]!;
    const downLeft = luma[i + size - 1]!;
    curveAcross += (left + right - twice) ** 2;
    slopeAcross += (right - left) ** 2;
    curveDown += (up + down - twice) ** 2;
    slopeDown += (down - up) ** 2;
    curveFall += (upLeft + downRight - twice) ** 2;
    slopeFall += (downRight - upLeft) ** 2;
    curveRise += (upRight + downLeft - twice) ** 2;
    slopeRise += (downLeft - upRight) ** 2;
  }
  sums[0] = curveAcross;
  sums[1] = slopeAcross;
  sums[2] = curveDown;
  sums[3] = slopeDown;
  sums[4] = curveFall;
  sums[5] = slopeFall;
  sums[6] = curveRise;
  sums[7] = slopeRise;
}
