import assert from 'node:assert/strict';
import pg from 'pg';
import sharp from 'sharp';
import { untilWaitingOnLock } from '../support/locks.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { assertRefusal, pageScan, postPhoto } from './scan-page-support.ts';

/**
 * The agent deletes the scan (delete_skin_scan: the person changed their mind) while the person's photo is
 * on its way: the page answers its one 404 for a scan that is gone, not 503 "the service cannot take the
 * photo now", which asked the person to try again with a link that can no longer work.
 */
describe('a photo sent while the scan is being deleted', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('upload-deleted');
  });
  after(async () => stack?.close());

  it('is refused not_found, and nothing of it is kept', async () => {
    const scan = await pageScan(stack.baseUrl);
    const photo = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#b08070' } })
      .jpeg()
      .toBuffer();
    // The deletion holds the scan row until it commits: the upload finds the scan (the deletion is not yet
    // visible), then waits at the upload counter's key to it until the deletion commits.
    const deleter = new pg.Client({ connectionString: stack.databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('begin');
      await deleter.query('delete from scans where id = $1', [scan.run_id]);
      const answer = postPhoto(stack.baseUrl, scan.run_id, photo, { secret: scan.secret });
      await untilWaitingOnLock(stack.orm, 'intake_uploads');
      await deleter.query('commit');

      await assertRefusal(
        await answer,
        404,
        'not_found',
        'This scan does not exist or has expired. Ask your assistant for a new link.',
      );
      for (const table of ['scans', 'scan_photos', 'intake_uploads']) {
        const key = table === 'scans' ? 'id' : 'run_id';
        const rows = await deleter.query(`select 1 from ${table} where ${key} = $1`, [scan.run_id]);
        assert.equal(rows.rowCount, 0, table);
      }
    } finally {
      await deleter.end();
    }
  });
});
