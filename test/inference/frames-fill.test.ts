import assert from 'node:assert/strict';
import { fillMarks } from '../../services/inference/frames.ts';
import { kthSmallest } from '../../services/inference/pixel-math.ts';
import { PATCH } from '../../services/inference/regions.ts';

const PLANE = PATCH * PATCH;

/** A generator of the same numbers every run (a linear congruential one). */
function numbers(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/**
 * The fill as it was written first (f247359, b82e3f8), one channel after the other: the marked pixels at
 * the median of the rest, then 20 rounds of the mean of each one's neighbours inside the patch.
 */
function fillOneChannelAtATime(patches: Float32Array, offset: number, marks: Uint8Array): void {
  const marked = [...marks.keys()].filter((i) => marks[i]);
  for (let c = 0; c < 3; c++) {
    const plane = patches.subarray(offset + c * PLANE, offset + (c + 1) * PLANE);
    const kept = Float32Array.from(plane.filter((_, i) => !marks[i]));
    if (kept.length === 0) continue;
    const base = kthSmallest(kept, kept.length >> 1);
    for (const i of marked) plane[i] = base;
    const previous = Float32Array.from(plane);
    const next = new Float32Array(marked.length);
    for (let round = 0; round < 20; round++) {
      marked.forEach((i, k) => {
        const x = i % PATCH;
        const read = (inside: boolean, at: number) => (inside ? previous[at]! : 0);
        const across = read(x > 0, i - 1) + read(x < PATCH - 1, i + 1);
        const down = read(i >= PATCH, i - PATCH) + read(i < PLANE - PATCH, i + PATCH);
        const count = Number(x > 0) + Number(x < PATCH - 1) + Number(i >= PATCH) + Number(i < PLANE - PATCH);
        next[k] = (across + down) / count;
      });
      marked.forEach((i, k) => {
        previous[i] = next[k]!;
      });
    }
    marked.forEach((i, k) => {
      plane[i] = next[k]!;
    });
  }
}

describe('frames.ts fillMarks: the three channels filled together, as each alone', () => {
  it('fills every channel to the bit as the one-channel fill, marks on the edges, in the middle, all and none', () => {
    const next = numbers(11);
    const shapes: Record<string, (x: number, y: number) => boolean> = {
      'a band across, through both edges': (_, y) => y >= 20 && y < 31,
      'a slanted temple and a corner': (x, y) => Math.abs(x - y) < 4 || (x < 3 && y > 60),
      'one pixel in a corner': (x, y) => x === PATCH - 1 && y === 0,
      'one pixel inside': (x, y) => x === 30 && y === 40,
      'every pixel but one': (x, y) => x !== 5 || y !== 5,
      'every pixel': () => true,
      'no pixel': () => false,
    };
    for (const [name, isMarked] of Object.entries(shapes)) {
      const marks = Uint8Array.from({ length: PLANE }, (_, i) =>
        isMarked(i % PATCH, Math.floor(i / PATCH)) ? 1 : 0,
      );
      // Two patches, the one filled second, with the first left as it was.
      const patches = Float32Array.from({ length: 6 * PLANE }, () => next());
      const expected = patches.slice();
      fillOneChannelAtATime(expected, 3 * PLANE, marks);
      fillMarks(patches, 3 * PLANE, marks);
      assert.deepEqual(new Uint8Array(patches.buffer), new Uint8Array(expected.buffer), name);
    }
  });
});
