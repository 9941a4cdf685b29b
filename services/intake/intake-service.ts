/**
 * IntakeService: the upload page's rules (proto/skinmatch/v1/intake.proto). A scan is addressed by its id
 * alone; once a browser has consented, reading progress, uploading and deleting need that browser's
 * secret. Unknown, expired and deleted scans are one and the same `not_found`.
 */
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  type ConsentRequest,
  ConsentResponseSchema,
  CreateChallengeResponseSchema,
  DeleteIntakeResponseSchema,
  type IntakeService,
  type IntakeState,
  OpenPageResponseSchema,
  type UploadPhotoRequest,
  UploadPhotoResponseSchema,
  type WatchIntakeResponse,
  WatchIntakeResponseSchema,
} from '../../gen/skinmatch/v1/intake_pb.ts';
import type { Orm } from '../core/db/orm.ts';
import { isForeignKeyViolation } from '../core/db/pg-errors.ts';
import type { PlainSql } from '../core/db/plain-sql.ts';
import { storePhoto, UPLOAD_CLOSED_MESSAGE } from '../scan/photo-intake.ts';
import { deleteOneScan } from '../scan/scan-deletion.ts';
import { scanChanges } from '../scan/scan-watch.ts';
import { errorReason, serviceError } from '../shared/errors.ts';
import type { Notifications } from '../shared/notifications.ts';
import type { BotChallenge } from './bot-challenge.ts';
import { consentingSecret, isConsentingBrowser } from './browser-secret.ts';
import { CONSENT_VERSION } from './consent.ts';
import { findIntake, type IntakeRecord, recordConsent } from './intake-reads.ts';
import { toIntakeState } from './intake-state.ts';
import { checkPhoto, type PhotoLimits } from './photo-check.ts';
import { countUpload } from './upload-limit.ts';
import { useChallenge } from './used-challenges.ts';

/** The same message for an unknown, an expired and a deleted scan. */
export const INTAKE_NOT_FOUND_MESSAGE = 'This scan does not exist or has expired.';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IntakeLimits extends PhotoLimits {
  /** Photos one scan may be sent per hour (PHOTO_UPLOADS_PER_HOUR). */
  readonly uploadsPerHour: number;
}

export interface IntakeServiceDeps {
  readonly orm: Orm;
  readonly sql: PlainSql;
  readonly pepper: Buffer;
  readonly notifications: Notifications;
  readonly challenge: BotChallenge;
  readonly limits: IntakeLimits;
  readonly now?: () => Date /** Aborted when the process stops taking work: watches end (scan-watch.ts). */;
  readonly stopping?: AbortSignal;
}

interface BrowserCall {
  readonly runId: string;
  readonly browserSecret: string;
}

export class IntakeServiceImpl implements ServiceImpl<typeof IntakeService> {
  readonly #deps: IntakeServiceDeps;
  readonly #now: () => Date;

  constructor(deps: IntakeServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  async createChallenge(req: { runId: string }) {
    const scan = await this.#find(req.runId);
    const { challenge } = this.#deps;
    const challengeJson = await challenge.create(scan.id, this.#now());
    return create(CreateChallengeResponseSchema, { provider: challenge.provider, challengeJson });
  }

  async openPage(req: BrowserCall) {
    const scan = await this.#find(req.runId);
    return create(OpenPageResponseSchema, { state: this.#state(scan, req.browserSecret) });
  }

  async consent(req: ConsentRequest) {
    if (req.consentVersion !== CONSENT_VERSION) {
      throw serviceError('invalid_input', `consent_version must be the current one, ${CONSENT_VERSION}.`, {
        field: 'consent_version',
      });
    }
    const scan = await this.#find(req.runId);
    const now = this.#now();
    const solved = await this.#deps.challenge.verify(scan.id, req.challengeSolution, now);
    if (!solved || !(await useChallenge(this.#deps.sql, solved))) {
      throw serviceError(
        'challenge_failed',
        'The challenge was not solved, or its solution was already used.',
      );
    }
    if (scan.browserHash !== null) {
      if (!this.#isConsenting(req.browserSecret, scan)) throw consentTaken();
      return create(ConsentResponseSchema, {
        browserSecret: req.browserSecret,
        state: this.#state(scan, req.browserSecret),
      });
    }
    const { secret, hash } = consentingSecret(this.#deps.pepper, req.browserSecret);
    const consent = { version: CONSENT_VERSION, browserHash: hash, at: now };
    if (!(await recordConsent(this.#deps.sql, scan.id, consent))) {
      await this.#find(scan.id); // expired meanwhile: not_found; otherwise another browser was first
      throw consentTaken();
    }
    const state = this.#state(await this.#find(scan.id), secret);
    return create(ConsentResponseSchema, { browserSecret: secret, state });
  }

  async uploadPhoto(req: UploadPhotoRequest) {
    const scan = await this.#fromConsentingBrowser(req);
    if (scan.status === 'complete') throw serviceError('upload_closed', UPLOAD_CLOSED_MESSAGE);
    const { sql, limits, orm } = this.#deps;
    // The scan may go (its agent's delete_skin_scan, its account's deletion, the purge) while the photo comes
    // in: counting the attempt then finds no scan to count for, and storePhoto decides again on the locked row.
    await countUpload(sql, scan.id, this.#now(), limits.uploadsPerHour).catch(scanGone);
    const photo = await checkPhoto(req.photo, limits);
    await storePhoto(orm.em.fork(), scan.id, photo.image, photo.contentType).catch(scanGone);
    const state = this.#state(await this.#find(scan.id), req.browserSecret);
    return create(UploadPhotoResponseSchema, { state });
  }

  async *watchIntake(req: BrowserCall, ctx: HandlerContext): AsyncGenerator<WatchIntakeResponse> {
    const first = await this.#fromConsentingBrowser(req);
    const consent = { version: first.consentVersion, byThisBrowser: true };
    const watch = { ...this.#deps, now: this.#now };
    for await (const scan of scanChanges(watch, first, ctx.signal, INTAKE_NOT_FOUND_MESSAGE)) {
      yield create(WatchIntakeResponseSchema, { state: toIntakeState(scan, consent) });
    }
  }

  async deleteIntake(req: BrowserCall) {
    const scan = await this.#fromConsentingBrowser(req);
    // As every deletion: the scan with its photo and match, and its analysis job off the queue.
    await deleteOneScan(this.#deps.orm.em.fork(), scan.id);
    return create(DeleteIntakeResponseSchema, { deleted: true });
  }

  /** The scan, if it exists and has not expired. */
  async #find(runId: string): Promise<IntakeRecord> {
    const scan = UUID_PATTERN.test(runId) ? await findIntake(this.#deps.sql, runId.toLowerCase()) : null;
    if (!scan || scan.expiresAt <= this.#now()) throw serviceError('not_found', INTAKE_NOT_FOUND_MESSAGE);
    return scan;
  }

  /** The scan, when the calling browser is the one that consented. */
  async #fromConsentingBrowser(req: BrowserCall): Promise<IntakeRecord> {
    const scan = await this.#find(req.runId);
    if (scan.browserHash === null) {
      throw serviceError('consent_required', 'Consent first: nothing is read or taken before it.');
    }
    if (!this.#isConsenting(req.browserSecret, scan)) {
      throw serviceError('not_consenting_browser', 'Only the browser that consented can do this.');
    }
    return scan;
  }

  #isConsenting(secret: string, scan: IntakeRecord): boolean {
    return isConsentingBrowser(this.#deps.pepper, secret, scan.browserHash);
  }

  #state(scan: IntakeRecord, secret: string): IntakeState {
    const byThisBrowser = scan.browserHash !== null && this.#isConsenting(secret, scan);
    const consent = { version: scan.consentVersion, byThisBrowser };
    // Once a browser has consented, progress is that browser's to read: any other caller (a party holding
    // only the link) learns that much and nothing of the scan's progress or outcome.
    return toIntakeState(
      scan.browserHash !== null && !byThisBrowser ? inAnotherBrowser(scan) : scan,
      consent,
    );
  }
}

/** The scan as a browser other than the consenting one sees it: as if no photo had been sent yet. */
function inAnotherBrowser(scan: IntakeRecord): IntakeRecord {
  return { ...scan, status: 'awaiting_upload', stage: '', progress: 0, failureReason: null };
}

/** A scan deleted after this call read it is the page's one not_found, not a server fault. */
function scanGone(err: unknown): never {
  const gone = errorReason(err) === 'not_found' || isForeignKeyViolation(err);
  throw gone ? serviceError('not_found', INTAKE_NOT_FOUND_MESSAGE) : err;
}

function consentTaken() {
  return serviceError('consent_taken', 'Another browser has already consented to this scan.');
}
