/**
 * Rate limits: guests per network — an IPv4 address, or an IPv6 /64 (one household or host usually owns a
 * whole /64, so counting single IPv6 addresses would be no limit at all) — and signed-in callers per
 * account. Every request on the MCP endpoints counts against a coarse per-minute request budget (whatever
 * its method, malformed ones too); every tool call also against a per-minute call budget; some tools have a
 * budget of their own (starting scans: an hourly one), and so do photo uploads on the person's page and
 * OAuth client registrations.
 *
 * With a PostgreSQL pool the counters live in the `rate_limits` table, so every façade replica counts
 * against the same budget, taken in small leases (facade/leased-budget.ts: never more than the budget, a
 * caller refused at most 5 % of it early per other replica, for a few seconds). If the database cannot be
 * reached, or does not answer a lookup within `STORE_TIMEOUT_MS` (a stalled server answers nothing, ever),
 * each replica counts in its own memory, asking the database again `STORE_RETRY_MS` later: limits loosen to
 * per replica, they never vanish, never refuse everyone, and never hold a request longer than that
 * deadline (docs/design-notes.md, "Rate limits"). The façade is told once when lookups start failing and
 * once when they answer again (it logs both and sets `skinmatch_rate_limits_shared`), so a wrong
 * DATABASE_URL is seen, not only an outage. Without a pool (a façade on its own in development) counting is
 * in memory only.
 */
import ipaddr from 'ipaddr.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ToolBudget } from '../services/shared/config.ts';
import { LeasedBudget, type Queryable } from './leased-budget.ts';
import { ToolError } from './mcp/tool-errors.ts';
import { parseAddress, remembered } from './net.ts';

export interface GuestLimitsConfig {
  /** Requests of any kind on the MCP endpoints per network (per account) per minute (default 600). */
  readonly requestsPerMinute?: number;
  /** Tool calls per network per minute. */
  readonly callsPerMinute: number;
  /** start_skin_scan calls per network per hour. */
  readonly scansPerHour: number;
  /** Photo uploads per network per hour (default 20). */
  readonly uploadsPerHour?: number;
  /** OAuth client registrations (POST /register) per network per hour (default 20). */
  readonly registrationsPerHour?: number;
  /** Further per-tool budgets (a tool listed here with start_skin_scan replaces scansPerHour). */
  readonly toolBudgets?: readonly ToolBudget[];
  /** How long a replica keeps unspent leased points of an idle key, in ms (default 5000; tests shorten it). */
  readonly leaseIdleMs?: number;
  /** The longest a lookup waits for the database before counting in memory (default STORE_TIMEOUT_MS). */
  readonly storeTimeoutMs?: number;
  /** How long every budget counts in memory after a failed lookup (default STORE_RETRY_MS; tests shorten it). */
  readonly storeRetryMs?: number;
}

/**
 * A lookup is one indexed upsert (milliseconds): past 2 s the database is not answering, and the request
 * goes on counted in memory. Core calls have 10 s (CORE_TIMEOUT_MS) inside an MCP request's 15 s
 * (MCP_REQUEST_TIMEOUT_MS): the lookup fits in the margin between them, and the call keeps all of its own.
 */
export const STORE_TIMEOUT_MS = 2000;
/** After a lookup failed or timed out, every budget counts in memory this long before asking again. */
export const STORE_RETRY_MS = 5000;

export const DEFAULT_GUEST_LIMITS: GuestLimitsConfig = { callsPerMinute: 120, scansPerHour: 30 };

/** The request budget when the configuration names none: five times the default call budget. */
export const DEFAULT_REQUESTS_PER_MINUTE = 600;

/** The table every replica counts in (created by migration 0010-rate-limits). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/** One budget: spends a point of the key's, or says how many ms remain until its window ends. */
interface Budget {
  consume(key: string): Promise<number | undefined>;
  close?(): void;
}

/** What the façade is told: each refusal (metrics count them), and each change of where limits count. */
export interface LimitListeners {
  /** A call was refused by this budget. */
  readonly refused?: (budget: string) => void;
  /**
   * Lookups in the database started failing (`shared` false, with the failure) or answer again (true):
   * told once per change, never per lookup. Not told while they keep answering.
   */
  readonly storeChanged?: (shared: boolean, failure?: string) => void;
}

export class GuestLimits {
  readonly #requests: Budget;
  readonly #calls: Budget;
  readonly #tools = new Map<string, Budget>();
  readonly #uploads: Budget;
  readonly #registrations: Budget;
  readonly #budgets: Budget[] = [];
  readonly #onRefusal: LimitListeners['refused'];

  constructor(
    config: GuestLimitsConfig = DEFAULT_GUEST_LIMITS,
    store?: Queryable,
    listeners: LimitListeners = {},
  ) {
    const state = new StoreState(config.storeRetryMs ?? STORE_RETRY_MS, listeners.storeChanged);
    const factory = budgetFactory(store, state, config);
    const make = (name: string, points: number, durationSeconds: number) => {
      const budget = factory(name, points, durationSeconds);
      this.#budgets.push(budget);
      return budget;
    };
    this.#onRefusal = listeners.refused;
    this.#requests = make('requests', config.requestsPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE, 60);
    this.#calls = make('calls', config.callsPerMinute, 60);
    const tools = [
      { tool: 'start_skin_scan', points: config.scansPerHour, durationSeconds: 3600 },
      ...(config.toolBudgets ?? []),
    ];
    for (const budget of tools) {
      this.#tools.set(budget.tool, make(`tool:${budget.tool}`, budget.points, budget.durationSeconds));
    }
    this.#uploads = make('uploads', config.uploadsPerHour ?? 20, 3600);
    this.#registrations = make('registrations', config.registrationsPerHour ?? 20, 3600);
  }

  /** A `rate_limited` error when the caller is over a budget, or undefined. */
  async check(tool: string, address: string): Promise<ToolError | undefined> {
    const key = networkOf(address);
    const own = this.#tools.get(tool);
    const wait =
      (await this.#consume('calls', this.#calls, key)) ??
      (own ? await this.#consume(`tool:${tool}`, own, key) : undefined);
    return wait === undefined ? undefined : refusal(key, wait);
  }

  /**
   * A `rate_limited` error when the caller is over its request budget, or undefined (and one point of it
   * spent). Every request on the MCP endpoints, of any method, asks this first.
   */
  async checkRequest(address: string): Promise<ToolError | undefined> {
    const key = networkOf(address);
    const wait = await this.#consume('requests', this.#requests, key);
    return wait === undefined ? undefined : refusal(key, wait);
  }

  /** Seconds to wait when the network is over its upload budget, or undefined. */
  checkUpload(address: string): Promise<number | undefined> {
    return this.#consume('uploads', this.#uploads, networkOf(address));
  }

  /** Seconds to wait when the network is over its client-registration budget, or undefined. */
  checkRegistration(address: string): Promise<number | undefined> {
    return this.#consume('registrations', this.#registrations, networkOf(address));
  }

  /** Seconds to wait when the key is over this budget, or undefined (and one point spent). */
  async #consume(name: string, budget: Budget, key: string): Promise<number | undefined> {
    const waitMs = await budget.consume(key);
    if (waitMs === undefined) return undefined;
    this.#onRefusal?.(name);
    return Math.max(1, Math.ceil(waitMs / 1000));
  }

  /** Stops the timers of the shared budgets. */
  close(): void {
    for (const budget of this.#budgets) budget.close?.();
  }
}

function refusal(key: string, wait: number): ToolError {
  return new ToolError(
    'rate_limited',
    `Too many requests ${key.startsWith('account:') ? 'for this account' : 'from this network'}; wait ${wait} s before trying again.`,
    undefined,
    wait,
  );
}

/**
 * Whether lookups reach the store (one store, one state for every budget): until when every budget counts
 * in memory after a failure, and the listener told when lookups start failing and when they answer again.
 */
class StoreState {
  /** Until when every budget counts in memory: the store failed or did not answer. */
  downUntil = 0;
  #failedAt = 0;
  #shared = true;
  readonly #retryMs: number;
  readonly #changed: LimitListeners['storeChanged'];

  constructor(retryMs: number, changed: LimitListeners['storeChanged']) {
    this.#retryMs = retryMs;
    this.#changed = changed;
  }

  failed(err: unknown): void {
    this.#failedAt = Date.now();
    this.downUntil = this.#failedAt + this.#retryMs;
    if (!this.#shared) return;
    this.#shared = false;
    this.#changed?.(false, err instanceof Error ? err.message : String(err));
  }

  /** A lookup that started at `startedAt` answered; one started before the last failure proves nothing. */
  answered(startedAt: number): void {
    if (this.#shared || startedAt < this.#failedAt) return;
    this.#shared = true;
    this.#changed?.(true);
  }
}

function budgetFactory(store: Queryable | undefined, state: StoreState, config: GuestLimitsConfig) {
  const timeoutMs = config.storeTimeoutMs ?? STORE_TIMEOUT_MS;
  let first = true;
  return (name: string, points: number, durationSeconds: number): Budget => {
    const memory = memoryBudget(name, points, durationSeconds);
    if (!store) return memory;
    const shared = new LeasedBudget(store, { name, points, durationSeconds, idleMs: config.leaseIdleMs });
    if (first) sweepExpiredRows(store);
    first = false;
    return {
      consume: async (key) => {
        const started = Date.now();
        if (started < state.downUntil) return memory.consume(key);
        // A point of this replica's lease, or a budget it knows is spent: answered from memory, with no
        // deadline to arm (a timer and a race per budget per call cost more than the answer itself).
        const leased = shared.spendLeased(key);
        if (leased !== null) {
          state.answered(started);
          return leased;
        }
        try {
          const wait = await withDeadline(shared.consume(key), timeoutMs);
          state.answered(started);
          return wait;
        } catch (err) {
          state.failed(err);
          return memory.consume(key);
        }
      },
      close: () => shared.close(),
    };
  };
}

/** The promise's outcome, or a rejection once `ms` have passed without one. */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`rate-limit store: no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {}); // a lookup given up on may still fail later: nobody waits for it
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

function memoryBudget(keyPrefix: string, points: number, duration: number): Budget {
  const limiter = new RateLimiterMemory({ keyPrefix, points, duration });
  return {
    async consume(key) {
      try {
        await limiter.consume(key);
        return undefined;
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        return err.msBeforeNext;
      }
    },
  };
}

/** Every five minutes, rows whose window ended an hour ago are deleted (one sweep per replica is enough). */
function sweepExpiredRows(store: Queryable): void {
  setInterval(() => {
    store
      .query(`delete from ${RATE_LIMIT_TABLE} where expire < $1`, [Date.now() - 3_600_000])
      .catch(() => {}); // not critical: the next sweep deletes them
  }, 300_000).unref();
}

/**
 * The rate-limit key of a client address (as facade/net.ts parses it: a port or brackets around it do not
 * matter): the IPv4 address, or the IPv6 /64 prefix. Text that is no address is its own key.
 */
export const networkOf = remembered(parseNetwork);

function parseNetwork(address: string): string {
  const ip = parseAddress(address);
  if (ip === undefined) return address;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return ip;
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
