/**
 * MikroORM's PostgreSQL driver with every value sent to PostgreSQL as a bound parameter ($1, $2, …).
 *
 * MikroORM 7 writes each value into the statement's text (`Platform.formatQuery`, called by
 * `AbstractSqlConnection.execute` and `stream`, which then hand pg a statement with no parameters), and
 * offers no option to do otherwise. PostgreSQL shows that text in pg_stat_activity (which monitoring
 * agents sample) and writes it to its log for a statement that fails, is cancelled or is slow
 * (`log_min_duration_statement`): a sign-in's upstream subject, an OAuth state's payload, a token's hash
 * would outlive every deletion there. Here `?` placeholders become `$n` with the value beside the text,
 * for every statement the ORM runs (em.execute, flush, find, query builders).
 *
 * The value rules are `formatQuery`'s (BasePostgreSqlPlatform.escape): `??` is an identifier, `\?` a
 * literal question mark, an array is a list (`in (?)`), a plain object is its JSON, a Date the platform's
 * text of it, a raw fragment its own SQL with its own values bound. Only `null` (and `undefined`) stay in
 * the text, as `null`: they carry nothing, and an untyped null parameter can leave PostgreSQL unable to
 * tell its type. A statement without values goes as before (pg's simple protocol, several statements
 * allowed); one with more values than the protocol carries (65 535) goes as MikroORM formats it, as no
 * statement of ours comes near (the catalog import uses COPY).
 */
import { isRaw, JsonProperty, raw, type Transaction, Utils } from '@mikro-orm/core';
import { PostgreSqlConnection, PostgreSqlDriver, type PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { NativeQueryBuilder } from '@mikro-orm/sql';
import { CompiledQuery } from 'kysely';

/** PostgreSQL's extended protocol counts a statement's parameters in 16 bits. */
const MAX_PARAMETERS = 65_535;

export interface BoundStatement {
  readonly text: string;
  readonly values: unknown[];
}

/** `sql` with its `?` placeholders numbered `$n` and `params` as the values, by formatQuery's rules. */
export function bindParams(
  platform: PostgreSqlPlatform,
  sql: string,
  params: readonly unknown[],
): BoundStatement {
  const values: unknown[] = [];
  const text = bindInto(platform, sql, params, values);
  return { text, values };
}

function bindInto(
  platform: PostgreSqlPlatform,
  sql: string,
  params: readonly unknown[],
  values: unknown[],
): string {
  let out = '';
  let next = 0;
  let pos = 0;
  // formatQuery's scan: `??` an identifier, `\?` a literal `?`, any other `?` a value.
  while (pos < sql.length) {
    const at = sql.indexOf('?', pos);
    if (at === -1) {
      out += sql.substring(pos);
      break;
    }
    if (at > 0 && sql[at - 1] === '\\') {
      out += `${sql.substring(pos, at - 1)}?`;
      pos = at + 1;
    } else if (sql[at + 1] === '?') {
      out += sql.substring(pos, at) + platform.quoteIdentifier(params[next++] as string);
      pos = at + 2;
    } else {
      out += sql.substring(pos, at) + bindValue(platform, params[next++], values);
      pos = at + 1;
    }
  }
  return out;
}

/** The placeholder(s) for one value, the value(s) pushed onto `values` as pg is to send them. */
function bindValue(platform: PostgreSqlPlatform, value: unknown, values: unknown[]): string {
  if (value === null || value === undefined) return 'null';
  if (isRaw(value)) return bindInto(platform, value.sql, value.params, values);
  if (Array.isArray(value)) return value.map((item) => bindValue(platform, item, values)).join(', ');
  let bound: unknown;
  if (Utils.isPlainObject(value) || (value as { [JsonProperty]?: unknown })[JsonProperty]) {
    bound = JSON.stringify(value);
  } else if (value instanceof Date) {
    bound = platform.formatDate(value);
  } else if (ArrayBuffer.isView(value)) {
    bound = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  } else if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') {
    bound = String(value);
  } else if (typeof value === 'string') {
    bound = value;
  } else {
    return platform.quoteValue(value);
  }
  values.push(bound);
  return `$${values.length}`;
}

type Method = 'all' | 'get' | 'run';
type Query = Parameters<PostgreSqlConnection['execute']>[0];
type LoggerContext = Parameters<PostgreSqlConnection['execute']>[4];

/** The pg connection whose `execute` binds values (see above); everything else is MikroORM's. */
export class BoundParamsConnection extends PostgreSqlConnection {
  // biome-ignore lint/suspicious/noExplicitAny: MikroORM's own signature (T defaults to any rows)
  override async execute<T = any>(
    query: Query,
    params: readonly unknown[] | Record<string, unknown> = [],
    method: Method = 'all',
    ctx?: Transaction,
    loggerContext?: LoggerContext,
  ): Promise<T> {
    await this.ensureConnection();
    const q = this.#prepare(query, params);
    const bound = bindParams(this.platform as PostgreSqlPlatform, q.query, q.params);
    if (bound.values.length > MAX_PARAMETERS)
      return super.execute(query, params, method, ctx, loggerContext) as Promise<T>;
    const { signal, inflightQueryAbortStrategy, ...logged } = (loggerContext ?? {}) as Record<
      string,
      unknown
    >;
    const abort =
      signal == null && inflightQueryAbortStrategy == null
        ? undefined
        : { signal, inflightQueryAbortStrategy };
    // What MikroORM logs (debug only, off here) is the text with placeholders, never the values inlined.
    const sql = this.getSql(bound.text, bound.text, logged);
    return this.executeQuery(
      sql,
      async () => {
        const compiled = CompiledQuery.raw(bound.text, bound.values);
        // biome-ignore lint/suspicious/noExplicitAny: Kysely's executeQuery takes abort options MikroORM adds
        const client = (ctx ?? this.getClient()) as any;
        const res = await client.executeQuery(compiled, abort);
        return this.transformRawResult(res, method);
      },
      { query: q.query, params: q.params, ...logged },
    ) as Promise<T>;
  }

  /** AbstractSqlConnection.prepareQuery (private there) without its formatQuery. */
  #prepare(query: Query, params: readonly unknown[] | Record<string, unknown>) {
    let q: unknown = query instanceof NativeQueryBuilder ? query.toRaw() : query;
    let p = params as unknown[];
    if (typeof q === 'string' && !Array.isArray(params)) q = raw(q, params as Record<string, unknown>);
    if (isRaw(q)) {
      p = q.params;
      q = q.sql;
    }
    return { query: this.config.get('onQuery')(q as string, p), params: p };
  }
}

/** MikroORM's PostgreSqlDriver on BoundParamsConnection: `driver` in openDatabase's configuration. */
export class BoundParamsDriver extends PostgreSqlDriver {
  // biome-ignore lint/suspicious/noExplicitAny: MikroORM's Configuration generic
  constructor(config: any) {
    super(config);
    (this as unknown as { connection: BoundParamsConnection }).connection = new BoundParamsConnection(
      this.config,
    );
  }
}
