/**
 * delete_skin_scan arriving while the scan worker records an analysis's outcome. The outcome's transaction
 * deleted the photo and then updated the scan; a deletion takes the scan and then (by cascade) the photo.
 * One arriving between the outcome's two statements deadlocked with it, and PostgreSQL failed one of the
 * two: often the person's deletion (`unavailable`, the scan kept with its new scores). Both now take the
 * scan's row first. The race is run many times, each with the deletion sent a little earlier or later
 * against the analysis's end; on the old order several of 60 deletions failed in every run.
 */
import assert from 'node:assert/strict';
import type { AnalysisEvent, Analyzer } from '../../services/scan/analyzer.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const ROUNDS = 60;
const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

/** Analyses that wait, once their progress is recorded, until the test lets each give its scores. */
class HeldAnalyzer implements Analyzer {
  readonly waiting: (() => void)[] = [];

  async *analyze(): AsyncIterable<AnalysisEvent> {
    yield { kind: 'progress', stage: 'measuring', percent: 60 };
    await new Promise<void>((release) => this.waiting.push(release));
    yield { kind: 'result', scores: { redness: 37 }, concerns: ['redness'] };
  }
}

describe('deleting a scan while its analysis’s outcome is recorded', function () {
  this.timeout(300_000);
  const analyzer = new HeldAnalyzer();
  let stack: Stack;

  before(async () => {
    stack = await startStack('deletion-during-outcome', { analyzer });
  });
  after(() => stack?.close());

  it('every deletion succeeds, and the scans and their photos are gone', async () => {
    const answers: Record<string, number> = {};
    const runIds: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { run_id, access_token } = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'race' }))
        .structuredContent;
      runIds.push(run_id);
      await uploadPhoto(stack.orm, run_id, PHOTO);
      while (analyzer.waiting.length === 0) await new Promise((r) => setTimeout(r, 5));
      const release = analyzer.waiting.shift()!;
      const deleted = callTool(stack.baseUrl, 'delete_skin_scan', { run_id, access_token });
      await new Promise((r) => setTimeout(r, round % 6));
      release();
      const result = await deleted;
      const answer = result.isError ? String(result.structuredContent.error.code) : 'deleted';
      answers[answer] = (answers[answer] ?? 0) + 1;
    }
    assert.deepEqual(answers, { deleted: ROUNDS });
    const left = await stack.orm.em.getConnection().execute(
      `select (select count(*) from scans where id = any(?::uuid[]))::int as scans,
           (select count(*) from scan_photos where run_id = any(?::uuid[]))::int as photos`,
      [`{${runIds}}`, `{${runIds}}`],
    );
    assert.deepEqual(left, [{ scans: 0, photos: 0 }]);
  });
});
