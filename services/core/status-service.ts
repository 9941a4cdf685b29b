/**
 * StatusService: what the façade's /health reports — whether the database answers and the operator's
 * switches.
 */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { GetStatusResponseSchema, type StatusService } from '../../gen/skinmatch/v1/status_pb.ts';
import type { LiveCatalog } from '../catalog/catalog-store.ts';
import { admissionsEnabled } from '../scan/admissions.ts';
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
      const admissions = await admissionsEnabled(this.#orm.em.fork());
      return create(GetStatusResponseSchema, {
        databaseOk: true,
        admissionsEnabled: admissions,
        // The catalog tools are served on /mcp/account; they work whenever the catalog is loaded.
        catalogToolsEnabled: this.#catalog.available,
      });
    } catch {
      return create(GetStatusResponseSchema, { databaseOk: false });
    }
  }
}
