import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isListening, waitForPort } from '../../scripts/port.ts';

/** An address of this machine other than loopback, to show a server is not reachable through it. */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

/**
 * Only core holds the token pepper: the internet-facing façade and the inference process start in
 * production without it. Core and inference listen on loopback unless told otherwise.
 */
describe('secrets and exposure of each process', function () {
  this.timeout(90_000);
  let dir: string;
  const children: ChildProcess[] = [];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-secrets-'));
  });
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function run(script: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
    const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, NODE_ENV: 'production', DATA_DIR: dir };
    const child = spawn(process.execPath, [script], {
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let text = '';
    child.stdout!.on('data', (chunk) => {
      text += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      text += chunk;
    });
    return { child, output: () => text };
  }

  async function stopped(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
  }

  it('inference starts in production with no secret at all, on 127.0.0.1 only', async () => {
    const port = await freePort();
    const { child, output } = run('services/inference/main.ts', { INFERENCE_PORT: String(port) });
    try {
      assert.ok(await waitForPort(port, 60_000), `inference listens: ${output()}`);
      for (let waited = 0; !output().includes('inference listening') && waited < 5000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      assert.match(output(), /"host":"127\.0\.0\.1".*inference listening/);
      if (outside) assert.equal(await isListening(port, outside), false, `not reachable on ${outside}`);
    } finally {
      await stopped(child);
    }
  });

  it('the façade starts in production without the token pepper', async () => {
    const port = await freePort();
    const { child, output } = run('facade/main.ts', {
      FACADE_PORT: String(port),
      PUBLIC_BASE_URL: 'https://skin.example.com',
      CORE_URL: 'http://127.0.0.1:9',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
      OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      OAUTH_COOKIE_KEYS: 'a-cookie-key-that-is-long-enough-123',
      IDP_1_ISSUER: 'https://accounts.example',
      IDP_1_CLIENT_ID: 'one',
      IDP_1_CLIENT_SECRET: 's1',
      IDP_2_ISSUER: 'https://login.example',
      IDP_2_CLIENT_ID: 'two',
      IDP_2_CLIENT_SECRET: 's2',
    });
    try {
      assert.ok(await waitForPort(port, 60_000), `the façade listens: ${output()}`);
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      assert.equal(res.status, 503, 'core is not running here');
      assert.doesNotMatch(output(), /TOKEN_PEPPER/);
    } finally {
      await stopped(child);
    }
  });

  it('core refuses to start in production without it', async () => {
    const { child, output } = run('services/core/main.ts', {
      CORE_PORT: String(await freePort()),
      DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
    });
    // 'close', not 'exit': at 'exit' its stderr may still hold the line checked below.
    const code = await new Promise((done) => child.once('close', done));
    assert.notEqual(code, 0);
    assert.match(output(), /TOKEN_PEPPER: not set, expected .* \(required when NODE_ENV=production\)/);
  });
});
