/**
 * Guest rate limits, per network: an IPv4 address, or an IPv6 /64 (one household or host usually owns a
 * whole /64, so counting single IPv6 addresses would be no limit at all). Every tool call counts against a
 * per-minute budget; starting scans has its own, smaller, hourly one. Counters live in each façade
 * replica's memory, so N replicas allow up to N times the budget; a cluster-wide cap belongs in the
 * ingress in front of them.
 */
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ToolError } from './mcp/tool-errors.ts';

export interface GuestLimitsConfig {
  /** Tool calls per network per minute. */
  readonly callsPerMinute: number;
  /** start_skin_scan calls per network per hour. */
  readonly scansPerHour: number;
}

export const DEFAULT_GUEST_LIMITS: GuestLimitsConfig = { callsPerMinute: 120, scansPerHour: 30 };

export class GuestLimits {
  readonly #calls: RateLimiterMemory;
  readonly #scans: RateLimiterMemory;

  constructor(config: GuestLimitsConfig = DEFAULT_GUEST_LIMITS) {
    this.#calls = new RateLimiterMemory({ keyPrefix: 'calls', points: config.callsPerMinute, duration: 60 });
    this.#scans = new RateLimiterMemory({ keyPrefix: 'scans', points: config.scansPerHour, duration: 3600 });
  }

  /** A `rate_limited` error when the network is over a budget, or undefined. */
  async check(tool: string, address: string): Promise<ToolError | undefined> {
    const network = networkOf(address);
    try {
      await this.#calls.consume(network);
      if (tool === 'start_skin_scan') await this.#scans.consume(network);
      return undefined;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const retryAfterSeconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      return new ToolError(
        'rate_limited',
        `Too many requests from this network; wait ${retryAfterSeconds} s before trying again.`,
        undefined,
        retryAfterSeconds,
      );
    }
  }
}

const networks = new Map<string, string>();
const MAX_REMEMBERED = 10_000;

/** The rate-limit key of a client address: the IPv4 address, or the IPv6 /64 prefix. */
export function networkOf(address: string): string {
  let network = networks.get(address);
  if (network === undefined) {
    if (networks.size >= MAX_REMEMBERED) networks.clear();
    network = parseNetwork(address);
    networks.set(address, network);
  }
  return network;
}

function parseNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address); // IPv4-mapped IPv6 becomes plain IPv4
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
