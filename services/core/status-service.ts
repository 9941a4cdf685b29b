/**
 * StatusService: what the façade's /health reports — whether the database answers, the admissions
 * switches (the operator's and the analysis backlog's) and the catalog's state. A database that does not
 * answer is logged with the reason, once per change. The read is bounded: a database that has not answered
 * within 1 s (one that hangs instead of refusing) is `database_ok: false`, not the caller's deadline, and
 * one read runs at a time (calls meanwhile share it, outside any one call: call-scope.ts). While core is
 * starting (its migrations have not ended; the switches' table may not even exist yet) it answers
 * `starting` with whether the database answers, and reads no switch.
 */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  CatalogState,
  GetStatusResponseSchema,
  type StatusService,
} from '../../gen/skinmatch/v1/status_pb.ts';
import type { CatalogLoadState, LiveCatalog } from '../catalog/catalog-store.ts';
import { type Admissions, admissions } from '../scan/admissions.ts';
import { within } from '../shared/health.ts';
import type { Logger } from '../shared/logger.ts';
import { outsideCalls } from './db/call-scope.ts';
import type { Orm } from './db/orm.ts';

const CATALOG_STATE: Record<CatalogLoadState, CatalogState> = {
  loading: CatalogState.LOADING,
  loaded: CatalogState.LOADED,
  unavailable: CatalogState.UNAVAILABLE,
};

/** How long GetStatus waits for the database. */
const READ_TIMEOUT_MS = 1000;

export class StatusServiceImpl implements ServiceImpl<typeof StatusService> {
  readonly #orm: Orm;
  readonly #catalog: LiveCatalog;
  readonly #logger: Logger;
  readonly #started: () => boolean;
  #databaseDown = false;
  #reading: Promise<Admissions> | undefined;

  constructor(orm: Orm, catalog: LiveCatalog, logger: Logger, started: () => boolean = () => true) {
    this.#orm = orm;
    this.#catalog = catalog;
    this.#logger = logger;
    this.#started = started;
  }

  async getStatus() {
    const loaded = this.#catalog.available;
    const catalog =
      loaded && this.#catalog.index.size === 0 ? CatalogState.EMPTY : CATALOG_STATE[this.#catalog.state];
    if (!this.#started()) {
      const connected = outsideCalls(() => this.#orm.isConnected());
      const databaseOk = await within(connected, READ_TIMEOUT_MS, false);
      return create(GetStatusResponseSchema, { databaseOk, starting: true, catalog });
    }
    try {
      const state = await within(this.#read(), READ_TIMEOUT_MS, undefined);
      if (!state) throw new Error(`no answer within ${READ_TIMEOUT_MS} ms`);
      if (this.#databaseDown) this.#logger.info('status: the database answers again');
      this.#databaseDown = false;
      return create(GetStatusResponseSchema, {
        databaseOk: true,
        admissionsEnabled: state.enabled,
        pausedByOperator: state.pausedByOperator,
        pausedByBacklog: state.pausedByBacklog,
        // The catalog tools are served on /mcp/account; they work whenever the catalog is loaded.
        catalogToolsEnabled: this.#catalog.available,
        catalog,
      });
    } catch (err) {
      // Probes ask every few seconds: the reason is logged when the database goes down, not on every probe.
      if (!this.#databaseDown) {
        this.#logger.error({ err: (err as Error).message }, 'status: the database does not answer');
      }
      this.#databaseDown = true;
      return create(GetStatusResponseSchema, { databaseOk: false, catalog });
    }
  }

  /** The switches, read once for every call waiting meanwhile. */
  #read(): Promise<Admissions> {
    if (!this.#reading) {
      const reading = outsideCalls(() => admissions(this.#orm.em.fork()));
      this.#reading = reading;
      void reading
        .catch(() => undefined)
        .finally(() => {
          if (this.#reading === reading) this.#reading = undefined;
        });
    }
    return this.#reading;
  }
}
