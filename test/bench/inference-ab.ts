/**
 * `node test/bench/inference-ab.ts REV`: the face analysis of the bench:inference 1920 px photo at git
 * revision REV against the working tree's, in one process, for changes meant to make it faster. REV's
 * services/ is extracted (git archive) into a temporary directory that borrows this node_modules; two
 * FaceAnalysis instances of each version (REV, tree, tree, REV: the instance loaded first ran faster in an
 * A/A run) and decoding alone are run in turn, the order rotated every round after a warm-up, each timed
 * in process CPU time (every thread) and wall-clock. Prints per version the p50 and mean of a photo, the
 * ratio to decoding and each instance's p50 (their spread is the harness' own noise), and whether the two
 * versions answered alike (the fingerprint photos are analysis-fingerprint.ts's to check).
 * BENCH_ROUNDS rounds (default 150) of BENCH_REPEATS analyses each (default 3), after BENCH_WARMUP rounds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeImage, releaseImage } from '../../services/inference/decode.ts';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { benchPhotos } from './bench-photos.ts';

const rev = process.argv[2] ?? '';
if (rev === '') {
  console.error('usage: node test/bench/inference-ab.ts REV');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 150);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 70);

const root = fileURLToPath(new URL('../../', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'inference-ab-'));
try {
  execFileSync('sh', ['-c', `git archive "$0" package.json services | tar -x -C "$1"`, rev, base], {
    cwd: root,
  });
  symlinkSync(join(root, 'node_modules'), join(base, 'node_modules'));
  const url = pathToFileURL(join(base, 'services/inference/face-analysis.ts')).href;
  const Old = ((await import(url)) as { FaceAnalysis: typeof FaceAnalysis }).FaceAnalysis;
  await compare([await Old.load(), await FaceAnalysis.load(), await FaceAnalysis.load(), await Old.load()]);
} finally {
  rmSync(base, { recursive: true, force: true });
}

async function compare(instances: FaceAnalysis[]): Promise<void> {
  const photo = (await benchPhotos())['1920 px (1920×1440)'];
  const answers: string[] = [];
  const tasks = [
    ...instances.map((analysis, i) => async () => {
      for await (const event of analysis.analyze(photo))
        if (event.kind !== 'progress') answers[i] = JSON.stringify(event);
    }),
    async () => releaseImage(await decodeImage(photo)),
  ];
  const cpu = tasks.map(() => [] as number[]);
  const wall = tasks.map(() => [] as number[]);
  for (let round = -WARMUP; round < ROUNDS; round++) {
    for (let k = 0; k < tasks.length; k++) {
      const t = (k + round + WARMUP) % tasks.length;
      const used = process.cpuUsage();
      const start = performance.now();
      for (let r = 0; r < REPEATS; r++) await tasks[t]!();
      const { user, system } = process.cpuUsage(used);
      if (round < 0) continue;
      wall[t]!.push((performance.now() - start) / REPEATS);
      cpu[t]!.push((user + system) / 1000 / REPEATS);
    }
  }
  await Promise.all(instances.map((analysis) => analysis.close()));
  const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.5 * (xs.length - 1))]!;
  const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const decode = p50(cpu[4]!);
  console.log(
    `1920 px bench photo, ${ROUNDS} rounds of ${REPEATS}; decoding alone CPU p50 ${decode.toFixed(2)} ms`,
  );
  for (const [name, at] of [
    [rev, [0, 3]],
    ['tree', [1, 2]],
  ] as const) {
    const both = [...cpu[at[0]]!, ...cpu[at[1]]!];
    console.log(
      `  ${name.padEnd(12)} CPU p50 ${p50(both).toFixed(2)} ms (${(p50(both) / decode).toFixed(3)}× decoding), mean ${mean(both).toFixed(2)}, wall p50 ${p50([...wall[at[0]]!, ...wall[at[1]]!]).toFixed(2)}; instances ${at.map((i) => p50(cpu[i]!).toFixed(2)).join(' and ')}`,
    );
  }
  console.log(
    `  answers alike: ${answers.every((a) => a === answers[0]) ? 'yes' : 'NO (analysis-fingerprint.ts tells where)'}`,
  );
}
