/**
 * Upstream identity providers for tests: `scripts/dev-idp.ts` in its own process (a real OpenID
 * provider: discovery, JWKS, signed ID tokens), and a façade port chosen first so that its callback can
 * be registered at the provider.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, waitForPort } from '../../scripts/port.ts';
import type { UpstreamProvider } from '../../services/shared/oauth-config.ts';

export interface RunningUpstream {
  readonly provider: UpstreamProvider;
  close(): Promise<void>;
}

export async function startUpstream(id: string, name: string, facadePort: number): Promise<RunningUpstream> {
  const port = await freePort();
  const provider: UpstreamProvider = {
    id,
    issuer: `http://127.0.0.1:${port}`,
    clientId: `skinmatch-test-${id}`,
    clientSecret: `test-secret-${id}-of-some-length`,
    name,
  };
  const child: ChildProcess = spawn(process.execPath, ['scripts/dev-idp.ts'], {
    env: {
      ...process.env,
      DEV_IDP_PORT: String(port),
      DEV_IDP_NAME: name,
      DEV_IDP_CLIENT_ID: provider.clientId,
      DEV_IDP_CLIENT_SECRET: provider.clientSecret,
      DEV_IDP_REDIRECT_URI: `http://127.0.0.1:${facadePort}/oauth/callback/${id}`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (!(await waitForPort(port, 20_000))) throw new Error(`dev identity provider ${name} did not start`);
  return {
    provider,
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}
