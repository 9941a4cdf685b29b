/**
 * The closing that fills in lines running across the forehead before colour-constancy.ts reads its
 * medians: a maximum, then a minimum, down each column of the forehead's patch.
 */
import { PATCH } from './regions.ts';

/**
 * Rows of the closing (a maximum, then a minimum, down each column of the forehead's patch) that fills in
 * lines running across the forehead before its medians are read: 9 rows are about 0.05 eye distances
 * there (a patch row is a third of a sample), wider than a forehead line with its soft edges (under 0.03),
 * which the crease rule alone does not leave out: the strong line edit moved the green gain by up to 6 %
 * (face j; 3 % now) and with it dark circles by 7 points. A closing only raises dips narrower than itself,
 * and, taken channel by channel, commutes with a camera's scaling of the channels, so the correction
 * still undoes that exactly. Only the forehead, where such lines are (docs/inference.md).
 */
const CLOSING = 9;

/** The closing's reach either side of a row, and the rows of a patch padded by it on both sides. */
const REACH = (CLOSING - 1) / 2;
const PADDED = PATCH + 2 * REACH;
/** The padded column, and its running extremes within blocks of CLOSING rows, forward and backward. */
const COLUMNS = new Float32Array(PADDED * PATCH);
const FORWARD = new Float32Array(PADDED * PATCH);
const BACKWARD = new Float32Array(PADDED * PATCH);

/** Into `out`, the plane closed down its columns over CLOSING rows (rows inside the patch only). */
export function closeDown(plane: Float32Array, dilated: Float32Array, out: Float32Array): Float32Array {
  slidingExtreme(plane, dilated, 1);
  return slidingExtreme(dilated, out, -1);
}

/**
 * Into `out`, the maximum (`sign` 1) or minimum (−1) of each column's CLOSING rows centred on each row,
 * rows outside the patch not counted (van Herk, Gil–Werman: running extremes forward and backward within
 * blocks of CLOSING padded rows, whose values at a window's two ends give the window's extreme — three
 * comparisons a pixel whatever the window). The minimum is the maximum of the negated values.
 */
function slidingExtreme(plane: Float32Array, out: Float32Array, sign: 1 | -1): Float32Array {
  const inside = REACH * PATCH;
  COLUMNS.fill(-Infinity, 0, inside);
  COLUMNS.fill(-Infinity, inside + PATCH * PATCH);
  signed(plane, sign, COLUMNS, inside);
  for (let row = 0; row < PADDED; row++) {
    const o = row * PATCH;
    runRow(FORWARD, o, row % CLOSING === 0 ? 0 : -PATCH);
  }
  for (let row = PADDED - 1; row >= 0; row--) {
    const o = row * PATCH;
    runRow(BACKWARD, o, row % CLOSING === CLOSING - 1 || row === PADDED - 1 ? 0 : PATCH);
  }
  windowExtremes(out, sign, (CLOSING - 1) * PATCH);
  return out;
}

/*
 * slidingExtreme's passes, functions of their own that V8 compiles whole (nested in slidingExtreme, called
 * six times a photo, the loops ran as on-stack-replaced code), each row of a run without a view allocated.
 */

/** Into `to` from `at`, each value of `plane` times `sign` (exact). */
function signed(plane: Float32Array, sign: 1 | -1, to: Float32Array, at: number): void {
  for (let i = 0; i < plane.length; i++) to[at + i] = sign * plane[i]!;
}

/**
 * Row `o` of a running extreme (`run`: FORWARD or BACKWARD): COLUMNS' row where a block starts (`previous`
 * 0), else the larger of it and the run's row `previous` away.
 */
function runRow(run: Float32Array, o: number, previous: number): void {
  if (previous === 0) for (let x = o; x < o + PATCH; x++) run[x] = COLUMNS[x]!;
  else for (let x = o; x < o + PATCH; x++) run[x] = Math.max(run[x + previous]!, COLUMNS[x]!);
}

/** Into `out`, each window's extreme: the larger of BACKWARD at its start and FORWARD at its end. */
function windowExtremes(out: Float32Array, sign: 1 | -1, last: number): void {
  for (let i = 0; i < PATCH * PATCH; i++) out[i] = sign * Math.max(BACKWARD[i]!, FORWARD[last + i]!);
}
