/**
 * StatusService: what the façade's /health reports — whether the database answers, the admissions
 * switches (the operator's and the analysis backlog's) and whether the catalog is loaded.
 */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { GetStatusResponseSchema, type StatusService } from '../../gen/skinmatch/v1/status_pb.ts';
import type { LiveCatalog } from '../catalog/catalog-store.ts';
import { admissions } from '../scan/admissions.ts';
import type { Orm } from './db/orm.ts';

export class StatusServiceImpl implements ServiceImpl<typeof StatusService> {
  readonly #orm: Orm;
  readonly #catalog: LiveCatalog;

  constructor(orm: Orm, catalog: LiveCatalog) {
    this.#orm = orm;
    this.#catalog = catalog;
  }

  async getStatus() {
    try {
      const state = await admissions(this.#orm.em.fork());
      return create(GetStatusResponseSchema, {
        databaseOk: true,
        admissionsEnabled: state.enabled,
        pausedByOperator: state.pausedByOperator,
        pausedByBacklog: state.pausedByBacklog,
        // The catalog tools are served on /mcp/account; they work whenever the catalog is loaded.
        catalogToolsEnabled: this.#catalog.available,
      });
    } catch {
      return create(GetStatusResponseSchema, { databaseOk: false });
    }
  }
}
