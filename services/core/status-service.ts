/**
 * StatusService: what the façade's /health reports — whether the database answers and the operator's
 * switches.
 */
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { GetStatusResponseSchema, type StatusService } from '../../gen/skinmatch/v1/status_pb.ts';
import { admissionsEnabled } from '../scan/admissions.ts';
import type { Orm } from './db/orm.ts';

export class StatusServiceImpl implements ServiceImpl<typeof StatusService> {
  readonly #orm: Orm;

  constructor(orm: Orm) {
    this.#orm = orm;
  }

  async getStatus() {
    try {
      const admissions = await admissionsEnabled(this.#orm.em.fork());
      return create(GetStatusResponseSchema, {
        databaseOk: true,
        admissionsEnabled: admissions,
        catalogToolsEnabled: false,
      });
    } catch {
      return create(GetStatusResponseSchema, { databaseOk: false });
    }
  }
}
