/**
 * Bounds on the upload page's progress streams (GET /scan/:id/events) one façade holds open. Each is a watch
 * on core, and a core holds at most GRPC_MAX_WATCHES of them for everyone: a probe held all 768 with one
 * scan from one network, and every other person's page was refused its progress. So a scan has a few
 * (several tabs of one person), a network (the rate limits' key: an IPv4 address, an IPv6 /64) a few more;
 * past either the stream is refused with 429 before core is asked. A slot is given back when its stream
 * closes in any way (the page gone, the scan settled, core's error, the façade stopping, the lifetime).
 * Counted in this replica's memory: they are open connections to it, not a budget over time.
 */
import { pageStreamsOpen, pageStreamsRefused } from '../../services/shared/metrics.ts';
import { networkOf } from '../rate-limits.ts';

export interface StreamBounds {
  /** Streams open at once for one scan. */
  readonly perScan: number;
  /** Streams open at once from one network. */
  readonly perNetwork: number;
  /** A stream is ended after this long (the page opens a new one), so no slot is held for days. */
  readonly lifetimeMs: number;
}

export const DEFAULT_STREAM_BOUNDS: StreamBounds = { perScan: 4, perNetwork: 16, lifetimeMs: 10 * 60_000 };

export type StreamRefusal = 'scan' | 'network';

export class StreamSlots {
  readonly bounds: StreamBounds;
  readonly #scans = new Map<string, number>();
  readonly #networks = new Map<string, number>();

  constructor(bounds: StreamBounds = DEFAULT_STREAM_BOUNDS) {
    this.bounds = bounds;
  }

  /** A slot for a stream of `runId` from `address`: its release (safe to call more than once), or why not. */
  take(runId: string, address: string): (() => void) | StreamRefusal {
    const network = networkOf(address);
    const refusal =
      (this.#scans.get(runId) ?? 0) >= this.bounds.perScan
        ? 'scan'
        : (this.#networks.get(network) ?? 0) >= this.bounds.perNetwork
          ? 'network'
          : undefined;
    if (refusal) {
      pageStreamsRefused.inc({ bound: refusal });
      return refusal;
    }
    add(this.#scans, runId, 1);
    add(this.#networks, network, 1);
    pageStreamsOpen.inc();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      add(this.#scans, runId, -1);
      add(this.#networks, network, -1);
      pageStreamsOpen.dec();
    };
  }

  /** Streams open now (tests). */
  get open(): number {
    let open = 0;
    for (const count of this.#scans.values()) open += count;
    return open;
  }
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const count = (counts.get(key) ?? 0) + delta;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
