import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

function files(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return found;
}

describe('generated protobuf code', () => {
  it('is what `buf generate` makes from proto/ today', function () {
    this.timeout(60_000);
    const out = mkdtempSync(join(tmpdir(), 'skinmatch-gen-'));
    try {
      execFileSync('buf', ['generate', '--output', out], { stdio: 'pipe' });
      const fresh = files(join(out, 'gen'));
      const committed = files('gen');
      assert.deepEqual([...committed.keys()].sort(), [...fresh.keys()].sort());
      for (const [path, text] of fresh)
        assert.equal(committed.get(path), text, `gen/${path} is stale: run npm run generate`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
