/**
 * One rate-limit budget shared by every façade replica through the `rate_limits` table, taken in leases:
 * a replica takes a few points of a key's budget with one upsert and spends them from memory, so a busy
 * key costs the database one write per lease instead of one per call.
 *
 * The bound, for a budget of P points a window and R replicas:
 * - never looser: every point spent was granted by the shared row first, so a key never gets more than
 *   P calls a window, whatever the number of replicas;
 * - at most slightly stricter: a lease is at most `max(1, ⌊P / 20⌋)` points (at most 5 % of the budget),
 *   so a caller can be refused while up to (R − 1) such leases sit unspent on other replicas; a replica
 *   gives its unspent points back after `idleMs` (5 s) without a call of that key, and a replica that found
 *   the budget spent asks the row again after the same time.
 * A lease is sized to last about `idleMs` at the rate this replica sees the key, and the first call of a
 * key in a window takes exactly one point, so a key called now and then costs one write a call, as before.
 *
 * If the database fails, the budget counts in this replica's memory until it answers again (the caller
 * passes that fallback): limits loosen to per replica, they never vanish.
 */
import type pg from 'pg';

/** What the budget needs of a pool (a plain `query`), so that tests can count its statements. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface LeasedBudgetOptions {
  /** Row keys are `${name}:${key}`, as rate-limiter-flexible wrote them (and account deletion expects). */
  readonly name: string;
  readonly points: number;
  readonly durationSeconds: number;
  /** How long unspent points stay leased without a call, and a spent budget is believed (ms). */
  readonly idleMs?: number;
}

/** A budget's largest lease is this fraction of it (at least one point). */
export const LEASE_SHARE = 1 / 20;
export const LEASE_IDLE_MS = 5000;

interface Lease {
  /** End of the window, epoch ms, as the shared row has it (0 before the first lease). */
  expire: number;
  /** Points leased and not yet spent. */
  spare: number;
  /** Points the next lease asks for. */
  size: number;
  grantedAt: number;
  lastCall: number;
  /** The row had no points left at `exhaustedAt` (0 when it had). */
  exhaustedAt: number;
  pending: Promise<void> | undefined;
}

const TAKE = `insert into rate_limits as r (key, points, expire) values ($1, $2, $3)
  on conflict (key) do update set
    points = case when r.expire is null or r.expire <= $4 then $2 else r.points + $2 end,
    expire = case when r.expire is null or r.expire <= $4 then $3 else r.expire end
  returning points, expire`;
const GIVE_BACK = 'update rate_limits set points = points - $2 where key = $1 and expire = $3';

export class LeasedBudget {
  readonly #store: Queryable;
  readonly #name: string;
  readonly #points: number;
  readonly #durationMs: number;
  readonly #idleMs: number;
  readonly #maxLease: number;
  readonly #leases = new Map<string, Lease>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(store: Queryable, options: LeasedBudgetOptions) {
    this.#store = store;
    this.#name = options.name;
    this.#points = options.points;
    this.#durationMs = options.durationSeconds * 1000;
    this.#idleMs = options.idleMs ?? LEASE_IDLE_MS;
    this.#maxLease = Math.max(1, Math.floor(options.points * LEASE_SHARE));
    this.#sweeper = setInterval(() => this.#sweep(), this.#idleMs).unref();
  }

  /**
   * Spends one point of the key's budget: undefined when granted, or the milliseconds until its window
   * ends when the budget is spent. Rejects when the database fails (the caller falls back).
   */
  async consume(key: string): Promise<number | undefined> {
    for (;;) {
      const now = Date.now();
      const spent = this.#spend(key, now);
      if (typeof spent !== 'object') return spent;
      if (spent.pending === undefined) {
        const lease = spent;
        const taking = this.#take(key, lease, now);
        lease.pending = taking;
        taking.then(
          () => (lease.pending = undefined),
          () => (lease.pending = undefined),
        );
      }
      await spent.pending;
    }
  }

  /**
   * `consume` as far as this replica's memory answers it, with no statement and no wait: undefined when a
   * leased point was spent, the milliseconds until the window ends when the budget is known to be spent,
   * or null when only the shared row can tell (then `consume` asks it). Most calls end here.
   */
  spendLeased(key: string): number | undefined | null {
    const spent = this.#spend(key, Date.now());
    return typeof spent === 'object' ? null : spent;
  }

  /** A leased point spent (undefined), the wait of a spent budget, or the lease to renew from the row. */
  #spend(key: string, now: number): number | undefined | Lease {
    let lease = this.#leases.get(key);
    if (lease === undefined) {
      lease = {
        expire: 0,
        spare: 0,
        size: 1,
        grantedAt: 0,
        lastCall: now,
        exhaustedAt: 0,
        pending: undefined,
      };
      this.#leases.set(key, lease);
    }
    lease.lastCall = now;
    if (lease.pending === undefined && lease.expire !== 0 && now >= lease.expire) {
      lease.spare = 0; // the window ended: what was leased in it is void
      lease.exhaustedAt = 0;
    }
    if (lease.spare > 0) {
      lease.spare--;
      return undefined;
    }
    if (lease.exhaustedAt !== 0 && now - lease.exhaustedAt < this.#idleMs) return lease.expire - now;
    return lease;
  }

  /** Stops the timer that gives unspent points back (a closing replica's leases expire with their window). */
  close(): void {
    clearInterval(this.#sweeper);
  }

  async #take(key: string, lease: Lease, now: number): Promise<void> {
    // Size the lease to last about idleMs at the rate seen since the last one, growing at most 4× a time.
    const elapsed = Math.max(1, now - lease.grantedAt);
    const wanted = lease.grantedAt === 0 ? 1 : Math.ceil((lease.size * this.#idleMs) / elapsed);
    const size = Math.max(1, Math.min(wanted, lease.size * 4, this.#maxLease));
    const { rows } = await this.#store.query<{ points: number; expire: string }>({
      name: 'rate_limit_take',
      text: TAKE,
      values: [`${this.#name}:${key}`, size, now + this.#durationMs, now],
    });
    const row = rows[0]!;
    const granted = Math.max(0, Math.min(size, this.#points - (row.points - size)));
    lease.expire = Number(row.expire);
    lease.size = size;
    lease.grantedAt = now;
    lease.spare += granted;
    lease.exhaustedAt = granted < size ? now : 0;
    // The row counted the whole lease; what was not granted goes back at once, or points given back later
    // by other replicas would only lower an overdrawn count instead of freeing calls.
    if (granted < size) this.#giveBack(key, size - granted, lease.expire);
  }

  #giveBack(key: string, points: number, expire: number): void {
    this.#store
      .query({
        name: 'rate_limit_give_back',
        text: GIVE_BACK,
        values: [`${this.#name}:${key}`, points, expire],
      })
      .catch(() => {}); // not giving back only keeps the limit stricter until the window ends
  }

  /** Gives back the points of keys not called for idleMs, and forgets keys whose windows ended. */
  #sweep(): void {
    const now = Date.now();
    for (const [key, lease] of this.#leases) {
      if (lease.pending !== undefined || now - lease.lastCall < this.#idleMs) continue;
      if (lease.spare > 0 && now < lease.expire) this.#giveBack(key, lease.spare, lease.expire);
      this.#leases.delete(key);
    }
  }
}
