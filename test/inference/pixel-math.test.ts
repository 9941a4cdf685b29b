import assert from 'node:assert/strict';
import { kthSmallest } from '../../services/inference/pixel-math.ts';

/** A generator of the same numbers every run (a linear congruential one). */
function numbers(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

describe('pixel-math.ts kthSmallest: the value sort() puts at k, without sorting', () => {
  it('agrees with sort() at every k, on patch-sized values with repeats, runs and a constant patch', () => {
    const next = numbers(7);
    const shapes: Record<string, (i: number) => number> = {
      random: () => next(),
      'few values': () => Math.floor(next() * 5) / 4,
      ascending: (i) => i / 4096,
      descending: (i) => 1 - i / 4096,
      constant: () => 0.5,
      'a dark band in skin': (i) => (i % 64 < 10 ? 0.05 + next() * 0.01 : 0.6 + next() * 0.2),
    };
    for (const [name, value] of Object.entries(shapes)) {
      for (const length of [1, 2, 3, 17, 4096]) {
        const values = Float32Array.from({ length }, (_, i) => value(i));
        const sorted = values.slice().sort();
        for (const k of new Set([0, length >> 1, Math.floor(0.75 * (length - 1)), length - 1])) {
          assert.equal(kthSmallest(values.slice(), k), sorted[k], `${name}, ${length} values, k ${k}`);
        }
      }
    }
  });
});
