/**
 * The onnxruntime runs some work makes: recorded where every session's run goes (InferenceSession's
 * prototype, which the typings do not name), for tests that hold a stage to its model runs.
 */
import { InferenceSession } from 'onnxruntime-node';

/** A run's inputs, by name: the dimensions of each tensor fed. */
export type RunFeeds = Record<string, { readonly dims: readonly number[] }>;

/** `work`'s value, how many onnxruntime runs it made, and what each was fed. */
export async function countRuns<T>(
  work: () => Promise<T>,
): Promise<{ value: T; runs: number; feeds: RunFeeds[] }> {
  const proto = (InferenceSession as unknown as { prototype: { run: (...args: unknown[]) => unknown } })
    .prototype;
  const run = proto.run;
  const feeds: RunFeeds[] = [];
  proto.run = function (this: unknown, ...args: unknown[]) {
    feeds.push(args[0] as RunFeeds);
    return run.apply(this, args);
  };
  try {
    const value = await work();
    return { value, runs: feeds.length, feeds };
  } finally {
    proto.run = run;
  }
}
