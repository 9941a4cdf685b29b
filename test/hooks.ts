/** Root hooks: the embedded PostgreSQL started by any test file is stopped once, after all of them. */
import { stopTestDatabaseServer } from './support/database.ts';

export const mochaHooks = {
  async afterAll() {
    await stopTestDatabaseServer();
  },
};
