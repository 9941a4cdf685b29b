/**
 * Rate limits: guests per network — an IPv4 address, or an IPv6 /64 (one household or host usually owns a
 * whole /64, so counting single IPv6 addresses would be no limit at all) — and signed-in callers per
 * account. Every tool call counts against a per-minute budget; some tools have a budget of their own
 * (starting scans: an hourly one), and so do photo uploads on the person's page.
 *
 * With a PostgreSQL pool the counters live in the `rate_limits` table, so every façade replica counts
 * against the same budget (one upsert per budget per call). If the database cannot be reached, each
 * replica falls back to counting in its own memory until it can: limits loosen to per replica, they never
 * vanish and never refuse everyone. Without a pool (a façade on its own in development) counting is in
 * memory only.
 */
import ipaddr from 'ipaddr.js';
import type pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { ToolBudget } from '../services/shared/config.ts';
import { ToolError } from './mcp/tool-errors.ts';

export interface GuestLimitsConfig {
  /** Tool calls per network per minute. */
  readonly callsPerMinute: number;
  /** start_skin_scan calls per network per hour. */
  readonly scansPerHour: number;
  /** Photo uploads per network per hour (default 20). */
  readonly uploadsPerHour?: number;
  /** Further per-tool budgets (a tool listed here with start_skin_scan replaces scansPerHour). */
  readonly toolBudgets?: readonly ToolBudget[];
}

export const DEFAULT_GUEST_LIMITS: GuestLimitsConfig = { callsPerMinute: 120, scansPerHour: 30 };

/** The table every replica counts in (created by migration 0010-rate-limits). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/** Called with the budget's name whenever a call is refused (metrics count refusals). */
export type RefusalListener = (budget: string) => void;

export class GuestLimits {
  readonly #calls: RateLimiterAbstract;
  readonly #tools = new Map<string, RateLimiterAbstract>();
  readonly #uploads: RateLimiterAbstract;
  readonly #onRefusal: RefusalListener | undefined;

  constructor(
    config: GuestLimitsConfig = DEFAULT_GUEST_LIMITS,
    store?: pg.Pool,
    onRefusal?: RefusalListener,
  ) {
    const make = budgetFactory(store);
    this.#onRefusal = onRefusal;
    this.#calls = make('calls', config.callsPerMinute, 60);
    const tools = [
      { tool: 'start_skin_scan', points: config.scansPerHour, durationSeconds: 3600 },
      ...(config.toolBudgets ?? []),
    ];
    for (const budget of tools) {
      this.#tools.set(budget.tool, make(`tool:${budget.tool}`, budget.points, budget.durationSeconds));
    }
    this.#uploads = make('uploads', config.uploadsPerHour ?? 20, 3600);
  }

  /** A `rate_limited` error when the caller is over a budget, or undefined. */
  async check(tool: string, address: string): Promise<ToolError | undefined> {
    const key = networkOf(address);
    const own = this.#tools.get(tool);
    const wait =
      (await this.#consume('calls', this.#calls, key)) ??
      (own ? await this.#consume(`tool:${tool}`, own, key) : undefined);
    if (wait === undefined) return undefined;
    return new ToolError(
      'rate_limited',
      `Too many requests ${key.startsWith('account:') ? 'for this account' : 'from this network'}; wait ${wait} s before trying again.`,
      undefined,
      wait,
    );
  }

  /** Seconds to wait when the network is over its upload budget, or undefined. */
  checkUpload(address: string): Promise<number | undefined> {
    return this.#consume('uploads', this.#uploads, networkOf(address));
  }

  /** Seconds to wait when the key is over this budget, or undefined (and one point spent). */
  async #consume(name: string, limiter: RateLimiterAbstract, key: string): Promise<number | undefined> {
    try {
      await limiter.consume(key);
      return undefined;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      this.#onRefusal?.(name);
      return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    }
  }
}

function budgetFactory(store: pg.Pool | undefined) {
  let first = true;
  return (keyPrefix: string, points: number, duration: number): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ keyPrefix, points, duration });
    if (!store) return memory;
    const limiter = new RateLimiterPostgres({
      storeClient: store,
      storeType: 'pool',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true, // by the migration: the façade never changes the schema
      clearExpiredByTimeout: first, // one sweep of expired rows per replica is enough
      keyPrefix,
      points,
      duration,
      // A key over budget is refused from memory until its window ends, sparing the database.
      inMemoryBlockOnConsumed: points + 1,
      insuranceLimiter: memory,
    });
    first = false;
    return limiter;
  };
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
