/**
 * A stack whose authorization server federates to real upstream identity providers (upstream.ts): the
 * façade's port is chosen first, each provider registers the callback on it, then the stack listens there.
 */
import { freePort } from '../../scripts/port.ts';
import { type Stack, type StackOptions, startStack } from './stack.ts';
import { type RunningUpstream, startUpstream } from './upstream.ts';

export interface SignInStack extends Stack {
  /** The providers in the order named, with ids '1', '2', … (their callbacks are /oauth/callback/ID). */
  readonly upstreams: readonly RunningUpstream[];
}

/** The stack `name` with one upstream provider per name (e.g. 'Alpha', 'Beta'); closing it stops them too. */
export async function startSignInStack(
  name: string,
  providerNames: readonly string[],
  options: Omit<StackOptions, 'port' | 'upstreams'> = {},
): Promise<SignInStack> {
  const port = await freePort();
  const started = await Promise.allSettled(
    providerNames.map((providerName, i) => startUpstream(String(i + 1), providerName, port)),
  );
  const upstreams = started.flatMap((each) => (each.status === 'fulfilled' ? [each.value] : []));
  const closeUpstreams = () => Promise.all(upstreams.map((each) => each.close()));
  const failed = started.find((each) => each.status === 'rejected');
  if (failed) {
    await closeUpstreams();
    throw failed.reason;
  }
  let stack: Stack;
  try {
    stack = await startStack(name, { ...options, port, upstreams: upstreams.map((each) => each.provider) });
  } catch (error) {
    await closeUpstreams();
    throw error;
  }
  return {
    ...stack,
    upstreams,
    close: async () => {
      await stack.close();
      await closeUpstreams();
    },
  };
}

/** Moves every used refresh token's first use `seconds` back: as if that long had passed since. */
export function refreshesUsedSecondsAgo(stack: Stack, seconds: number) {
  return stack.orm.em
    .getConnection()
    .execute(
      `update oauth_state set consumed_at = now() - make_interval(secs => ?) where model = 'RefreshToken' and consumed_at is not null`,
      [seconds],
    );
}
