/**
 * GET /scan/:id/events: core's WatchIntake stream relayed to the page as server-sent events. Every state is
 * `event: state` with the PageState as data; the stream ends when the scan is complete or failed, and with
 * `event: gone` when it is deleted or expires. It has no deadline (the façade's per-call deadline would
 * cut a slow analysis short) and ends with the browser: the call to core is cancelled when the page goes.
 * A comment every so often keeps proxies from closing a quiet stream. Each stream holds a slot of the
 * façade's bounds (page-streams.ts), taken before core is asked and given back when it closes; past its
 * lifetime it ends with `event: renew`, and the page opens a new one.
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import type { IntakeService, WatchIntakeResponse } from '../../gen/skinmatch/v1/intake_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import type { Logger } from '../../services/shared/logger.ts';
import type { Readiness } from '../../services/shared/shutdown.ts';
import { setPageHeaders } from './page-security.ts';
import { toPageState } from './page-state.ts';
import type { StreamRefusal, StreamSlots } from './page-streams.ts';

export const KEEP_ALIVE_MS = 15_000;

export interface EventsRelay {
  readonly intake: Client<typeof IntakeService>;
  readonly logger: Logger;
  readonly keepAliveMs: number;
  /** Answers a refusal of the watch before the stream has started. */
  readonly refuse: (ctx: Context, err: unknown) => void;
  /** The bounds on open streams; past one the stream is refused (`refuseSlot`) before core is asked. */
  readonly slots: StreamSlots;
  readonly refuseSlot: (ctx: Context, refusal: StreamRefusal) => void;
  /** Ends the stream when the façade stops taking work (the page's EventSource then reconnects). */
  readonly readiness?: Readiness;
}

export async function relayEvents(relay: EventsRelay, ctx: Context, runId: string, browserSecret: string) {
  const release = relay.slots.take(runId, ctx.ip);
  if (typeof release === 'string') return relay.refuseSlot(ctx, release);
  const cancel = new AbortController();
  // Listening from the start: a page that goes away before the first state must stop the call to core too.
  // A response closes however it ended (refused, the page gone, the stream ended): the slot is given back.
  ctx.res.once('close', () => {
    release();
    cancel.abort();
  });
  const watch = relay.intake
    .watchIntake({ runId, browserSecret }, { signal: cancel.signal, timeoutMs: 0 })
    [Symbol.asyncIterator]();
  // The first state decides the answer: a refusal is a JSON answer with its status, not an event.
  let first: IteratorResult<WatchIntakeResponse>;
  try {
    first = await watch.next();
  } catch (err) {
    if (cancel.signal.aborted) return; // the page went away: nobody to answer
    cancel.abort();
    return relay.refuse(ctx, err);
  }
  if (cancel.signal.aborted) return void watch.return?.();
  setPageHeaders(ctx);
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('X-Accel-Buffering', 'no'); // a buffering proxy in front would hold every event back
  // Written here rather than by Koa: a stream the browser closes is the normal end, not an error to log.
  ctx.respond = false;
  const { res } = ctx;
  res.socket?.setNoDelay(true);
  res.flushHeaders();
  const write = (text: string) => {
    if (!res.destroyed && !res.writableEnded) res.write(text);
  };
  const keepAlive = setInterval(() => write(': keep-alive\n\n'), relay.keepAliveMs);
  // A stopping façade ends the stream as the page going away would: the call to core is cancelled and the
  // response ends cleanly, so the browser reconnects (to another replica) instead of waiting for the bound.
  // So does the stream's lifetime, telling the page to open a new one at once.
  let ending: 'stopping' | 'renew' | undefined;
  const end = (why: typeof ending) => {
    ending ??= why;
    cancel.abort();
  };
  const forget = relay.readiness?.holdStream(() => end('stopping'));
  const lifetime = setTimeout(() => end('renew'), relay.slots.bounds.lifetimeMs);
  const send = (event: string, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

  void (async () => {
    try {
      for (let next = first; !next.done; next = await watch.next()) {
        send('state', toPageState(next.value.state));
      }
    } catch (err) {
      if (!cancel.signal.aborted) {
        if (errorReason(err) === 'not_found') send('gone', {});
        else relay.logger.warn({ err: (err as Error).message }, 'scan page: progress stream from core ended');
      }
    } finally {
      forget?.();
      clearInterval(keepAlive);
      clearTimeout(lifetime);
      cancel.abort();
      if (ending === 'renew') send('renew', {});
      release(); // before the page can ask for the next one
      if (!res.destroyed) res.end();
      // Its connection too (it would idle until the keep-alive timeout, and the port's close waits for it).
      if (ending === 'stopping') res.socket?.end();
    }
  })();
}
