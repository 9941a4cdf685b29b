/**
 * `node test/bench/profile-summary.ts FILE.cpuprofile [TOP] [FROM]`: where a `--cpu-prof` profile's time
 * went — self time by package (node_modules/<package>, the project's own files, Node's internals, garbage
 * collection, idle) and the TOP functions by self time. With FROM, a function name, only the samples from
 * the first one with FROM on its stack count (e.g. `recommendProducts`, to leave out a process's start).
 * The benchmarks write profiles with BENCH_PROFILE.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly children?: readonly number[];
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [file, top = '25', from] = process.argv.slice(2);
if (!file) {
  console.error('usage: node test/bench/profile-summary.ts FILE.cpuprofile [TOP]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const onStack = (id: number | undefined, name: string): boolean =>
  id !== undefined && (byId.get(id)!.callFrame.functionName === name || onStack(parentOf.get(id), name));
const first = from === undefined ? 0 : profile.samples.findIndex((id) => onStack(id, from));
if (first < 0) throw new Error(`no sample has ${from} on its stack`);
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (i >= first) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

function packageOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (url === '') return functionName.startsWith('(') ? functionName : `(${functionName || 'native'})`;
  const inModules = url.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const [scope = '', name = ''] = url.slice(inModules + 'node_modules/'.length).split('/');
    return scope.startsWith('@') ? `${scope}/${name}` : scope;
  }
  if (url.startsWith('node:')) return 'node internals';
  return 'skinmatch';
}

const packages = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  total += us;
  const pkg = packageOf(frame);
  packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  const where = frame.url ? `${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
  const name = `${frame.functionName || '(anonymous)'} ${where}`;
  functions.set(name, (functions.get(name) ?? 0) + us);
}
const busy = total - (packages.get('(idle)') ?? 0);
const line = (name: string, us: number) =>
  `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}`;
const since = from === undefined ? '' : ` from the first ${from}`;
console.log(
  `${file}${since}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (% of busy)\n`,
);
console.log('self time by package:');
for (const [name, us] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
  if (name !== '(idle)') console.log(line(name, us));
}
console.log(`\ntop ${top} functions by self time:`);
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(1, Number(top) + 1)) {
  console.log(line(name, us));
}
