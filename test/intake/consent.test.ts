/**
 * The upload page's rules over Connect, on a real core and PostgreSQL: the bot challenge, consent and who
 * owns the scan afterwards, the identical `not_found`, and deletion from the page.
 */
import assert from 'node:assert/strict';
import { Code } from '@connectrpc/connect';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { plainSql } from '../../services/core/db/plain-sql.ts';
import type { BotChallenge } from '../../services/intake/bot-challenge.ts';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { INTAKE_NOT_FOUND_MESSAGE } from '../../services/intake/intake-service.ts';
import { purgeUsedChallenges } from '../../services/intake/used-challenges.ts';
import { hashToken } from '../../services/scan/token.ts';
import { TEST_INTAKE_LIMITS } from '../support/intake.ts';
import { type Stack, startStack, TEST_PEPPER } from '../support/stack.ts';
import { type Clients, clients, consentedScan, refused, solvedChallenge } from './support.ts';

describe('IntakeService: challenge, consent and ownership', () => {
  let stack: Stack;
  let c: Clients;

  before(async () => {
    stack = await startStack('intake-consent');
    c = clients(stack);
  });
  after(() => stack?.close());
  afterEach(() => {
    stack.clock.offsetMs = 0;
  });

  const startScan = async () => (await c.scans.startScan({ source: 'consent test' })).runId;
  const consent = (runId: string, challengeSolution: string, browserSecret = '') =>
    c.intake.consent({ runId, consentVersion: CONSENT_VERSION, challengeSolution, browserSecret });

  it('a new scan opens with nobody consented and the current consent version', async () => {
    const runId = await startScan();
    const { state } = await c.intake.openPage({ runId });
    assert.equal(state?.runId, runId);
    assert.equal(state?.status, ScanStatus.AWAITING_UPLOAD);
    assert.equal(state?.consented, false);
    assert.equal(state?.isConsentingBrowser, false);
    assert.equal(state?.consentVersion, CONSENT_VERSION);
  });

  it('the first browser to consent owns the scan; its secret is stored only as a keyed hash', async () => {
    const runId = await startScan();
    const before = new Date();
    const first = await consent(runId, await solvedChallenge(c, runId));
    assert.match(first.browserSecret, /^[a-f0-9]{64}$/);
    assert.equal(first.state?.consented, true);
    assert.equal(first.state?.isConsentingBrowser, true);
    const [row] = await stack.orm.em
      .getConnection()
      .execute<{ consent_version: string; consented_at: string; browser_hash: string }[]>(
        'select consent_version, consented_at, browser_hash from scans where id = ?',
        [runId],
      );
    assert.ok(row);
    assert.equal(row.consent_version, CONSENT_VERSION);
    assert.ok(new Date(row.consented_at).getTime() >= before.getTime() - 1000);
    assert.equal(row.browser_hash, hashToken(TEST_PEPPER, `browser:${first.browserSecret}`));
    assert.notEqual(row.browser_hash, first.browserSecret);

    const mine = await c.intake.openPage({ runId, browserSecret: first.browserSecret });
    assert.equal(mine.state?.isConsentingBrowser, true);
    const theirs = await c.intake.openPage({ runId, browserSecret: 'ab'.repeat(32) });
    assert.deepEqual([theirs.state?.consented, theirs.state?.isConsentingBrowser], [true, false]);

    // Another browser, with a valid challenge of its own, is refused; so is one that claims any secret.
    await refused(
      consent(runId, await solvedChallenge(c, runId)),
      Code.PermissionDenied,
      'consent_taken',
      'Another browser has already consented to this scan.',
    );
    await refused(
      consent(runId, await solvedChallenge(c, runId), 'cd'.repeat(32)),
      Code.PermissionDenied,
      'consent_taken',
    );
    // The same browser consenting again changes nothing.
    const again = await consent(runId, await solvedChallenge(c, runId), first.browserSecret);
    assert.equal(again.browserSecret, first.browserSecret);
    assert.equal(again.state?.isConsentingBrowser, true);
    const [after] = await stack.orm.em
      .getConnection()
      .execute('select consented_at, browser_hash from scans where id = ?', [runId]);
    assert.deepEqual(after, { consented_at: row.consented_at, browser_hash: row.browser_hash });
  });

  it('a browser that consented to another scan consents with the secret it holds; a malformed one is replaced', async () => {
    const [first, second, third] = [await startScan(), await startScan(), await startScan()];
    const held = (await consent(first, await solvedChallenge(c, first))).browserSecret;
    const again = await consent(second, await solvedChallenge(c, second), held);
    assert.equal(again.browserSecret === held, true, 'the browser keeps its cookie');
    for (const runId of [first, second]) {
      const { state } = await c.intake.openPage({ runId, browserSecret: held });
      assert.equal(state?.isConsentingBrowser, true, runId);
    }
    const fresh = await consent(third, await solvedChallenge(c, third), 'AB'.repeat(32));
    assert.match(fresh.browserSecret, /^[a-f0-9]{64}$/);
    assert.notEqual(fresh.browserSecret, 'AB'.repeat(32));
  });

  it('two browsers consenting at once: exactly one owns the scan', async () => {
    const runId = await startScan();
    const solutions = await Promise.all([solvedChallenge(c, runId), solvedChallenge(c, runId)]);
    const results = await Promise.allSettled(solutions.map((s) => consent(runId, s)));
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const loser = results.find((r) => r.status === 'rejected');
    await refused(Promise.reject(loser?.reason), Code.PermissionDenied, 'consent_taken');
  });

  it('consent without a valid, unused, unexpired solution for this scan is challenge_failed', async () => {
    const runId = await startScan();
    const failed = (solution: string) =>
      refused(
        consent(runId, solution),
        Code.PermissionDenied,
        'challenge_failed',
        'The challenge was not solved, or its solution was already used.',
      );
    await failed('');
    await failed('not base64 json');
    // A solution whose counter was changed is no solution.
    const solution = await solvedChallenge(c, runId);
    const payload = JSON.parse(Buffer.from(solution, 'base64').toString());
    payload.solution.counter += 1;
    payload.solution.derivedKey = '00'.repeat(32);
    await failed(Buffer.from(JSON.stringify(payload)).toString('base64'));
    // A challenge whose parameters were edited no longer matches its signature.
    const edited = JSON.parse(Buffer.from(solution, 'base64').toString());
    edited.challenge.parameters.expiresAt += 3600;
    await failed(Buffer.from(JSON.stringify(edited)).toString('base64'));
    // A solution made for another scan.
    await failed(await solvedChallenge(c, await startScan()));
    // An expired challenge (ten minutes to solve and use it).
    const late = await solvedChallenge(c, runId);
    stack.clock.offsetMs = 10 * 60 * 1000 + 1000;
    await failed(late);
    stack.clock.offsetMs = 0;
    // A used one: the first consent takes it, the replay is refused even by the same browser.
    const once = await solvedChallenge(c, runId);
    const first = await consent(runId, once);
    await failed(once);
    await refused(consent(runId, once, first.browserSecret), Code.PermissionDenied, 'challenge_failed');
    const used = await stack.orm.em.getConnection().execute('select id from used_challenges');
    assert.ok(used.length >= 1);
  });

  it('a consent text version other than the current one is invalid_input', async () => {
    const runId = await startScan();
    await refused(
      c.intake.consent({
        runId,
        consentVersion: '2020-01-01',
        challengeSolution: await solvedChallenge(c, runId),
      }),
      Code.InvalidArgument,
      'invalid_input',
      `consent_version must be the current one, ${CONSENT_VERSION}.`,
    );
  });

  it('without consent, uploading, watching and deleting are consent_required', async () => {
    const runId = await startScan();
    const message = 'Consent first: nothing is read or taken before it.';
    const code = Code.FailedPrecondition;
    const photo = new Uint8Array([0xff, 0xd8, 0xff]);
    await refused(c.intake.uploadPhoto({ runId, photo }), code, 'consent_required', message);
    await refused(c.intake.deleteIntake({ runId }), code, 'consent_required', message);
    await refused(first(c.intake.watchIntake({ runId })), code, 'consent_required', message);
  });

  it('another browser cannot upload, watch or delete: not_consenting_browser', async () => {
    const { runId } = await consentedScan(c);
    const message = 'Only the browser that consented can do this.';
    const code = Code.PermissionDenied;
    for (const browserSecret of ['', 'not hex', 'ab'.repeat(32)]) {
      const photo = new Uint8Array([0xff, 0xd8, 0xff]);
      await refused(
        c.intake.uploadPhoto({ runId, browserSecret, photo }),
        code,
        'not_consenting_browser',
        message,
      );
      await refused(c.intake.deleteIntake({ runId, browserSecret }), code, 'not_consenting_browser', message);
      await refused(
        first(c.intake.watchIntake({ runId, browserSecret })),
        code,
        'not_consenting_browser',
        message,
      );
    }
  });

  it('unknown, malformed, expired and deleted scans are one identical not_found, on every call', async () => {
    const expired = await consentedScan(c);
    const deleted = await consentedScan(c);
    await c.intake.deleteIntake({ runId: deleted.runId, browserSecret: deleted.secret });
    const unknown = { runId: '00000000-0000-4000-8000-000000000000', secret: 'ab'.repeat(32) };
    const malformed = { runId: 'not-a-uuid', secret: 'ab'.repeat(32) };
    const notFound = (call: Promise<unknown>) =>
      refused(call, Code.NotFound, 'not_found', INTAKE_NOT_FOUND_MESSAGE);
    for (const [name, scan] of Object.entries({ unknown, malformed, expired, deleted })) {
      if (name === 'expired') stack.clock.offsetMs = 7 * 24 * 3600 * 1000 + 1000;
      const { runId, secret: browserSecret } = scan;
      await notFound(c.intake.createChallenge({ runId }));
      await notFound(c.intake.openPage({ runId, browserSecret }));
      await notFound(
        c.intake.consent({ runId, consentVersion: CONSENT_VERSION, challengeSolution: 'x', browserSecret }),
      );
      await notFound(c.intake.uploadPhoto({ runId, browserSecret, photo: new Uint8Array(10) }));
      await notFound(first(c.intake.watchIntake({ runId, browserSecret })));
      await notFound(c.intake.deleteIntake({ runId, browserSecret }));
      stack.clock.offsetMs = 0;
    }
  });

  it('deleting from the page deletes the scan: the agent’s token stops working', async () => {
    const { runId, accessToken, secret } = await consentedScan(c);
    assert.equal((await c.scans.getScan({ runId, accessToken })).scan?.runId, runId);
    const { deleted } = await c.intake.deleteIntake({ runId, browserSecret: secret });
    assert.equal(deleted, true);
    await refused(c.scans.getScan({ runId, accessToken }), Code.NotFound, 'not_found');
    const rows = await stack.orm.em.getConnection().execute('select id from scans where id = ?', [runId]);
    assert.deepEqual(rows, []);
  });
});

/** The first message of a stream (or its error). */
async function first<T>(stream: AsyncIterable<T>): Promise<T | undefined> {
  for await (const message of stream) return message;
  return undefined;
}

describe('IntakeService: the bot challenge is pluggable, and used solutions are purged', () => {
  /** A stand-in for a hosted challenge: its widget's token is "ok-" and the scan id. */
  const hosted: BotChallenge = {
    provider: 'hosted',
    create: async () => JSON.stringify({ sitekey: 'site-key' }),
    verify: async (runId, solution, now) =>
      solution === `ok-${runId}`
        ? { id: `hosted-${runId}`, expiresAt: new Date(now.getTime() + 60_000) }
        : null,
  };
  let stack: Stack;
  let c: Clients;

  before(async () => {
    stack = await startStack('intake-hosted', { intake: { challenge: hosted, limits: TEST_INTAKE_LIMITS } });
    c = clients(stack);
  });
  after(() => stack?.close());

  it('core takes any BotChallenge, and still allows each solution once', async () => {
    const { runId } = await c.scans.startScan({ source: 'hosted challenge' });
    const challenge = await c.intake.createChallenge({ runId });
    assert.deepEqual([challenge.provider, challenge.challengeJson], ['hosted', '{"sitekey":"site-key"}']);
    const consent = (challengeSolution: string) =>
      c.intake.consent({ runId, consentVersion: CONSENT_VERSION, challengeSolution });
    await refused(consent('ok-another'), Code.PermissionDenied, 'challenge_failed');
    const { state } = await consent(`ok-${runId}`);
    assert.equal(state?.consented, true);
    await refused(consent(`ok-${runId}`), Code.PermissionDenied, 'challenge_failed');
  });

  it('purging removes used solutions whose challenge has expired, and only those', async () => {
    const sql = await plainSql(stack.orm);
    await sql.query(
      `insert into used_challenges (id, expires_at) values ('old', now() - interval '1 second'),
         ('fresh', now() + interval '5 minutes')`,
    );
    assert.ok((await purgeUsedChallenges(sql)) >= 1);
    const { rows } = await sql.query(`select id from used_challenges where id in ('old', 'fresh')`);
    assert.deepEqual(rows, [{ id: 'fresh' }]);
  });
});
