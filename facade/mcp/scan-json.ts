/**
 * Core's Scan message as the JSON a tool returns: snake_case fields and lowercase status and next_action
 * values. Empty optional fields are left out rather than sent as "".
 */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { UsedMatch } from '../../gen/skinmatch/v1/match_pb.ts';
import { NextAction, type Scan, ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { PRODUCT_MATCH, productMatchJson } from './product-match.ts';

const STATUS: Record<number, string> = {
  [ScanStatus.AWAITING_UPLOAD]: 'awaiting_upload',
  [ScanStatus.QUEUED]: 'queued',
  [ScanStatus.ANALYZING]: 'analyzing',
  [ScanStatus.COMPLETE]: 'complete',
  [ScanStatus.FAILED]: 'failed',
};

const NEXT_ACTION: Record<number, string> = {
  [NextAction.SHARE_UPLOAD_URL]: 'share_upload_url',
  [NextAction.POLL]: 'poll',
  [NextAction.RECOMMEND_PRODUCTS]: 'recommend_products',
  [NextAction.ASK_PERSON_TO_RETAKE]: 'ask_person_to_retake',
  [NextAction.NONE]: 'none',
  [NextAction.START_NEW_SCAN]: 'start_new_scan',
};

export const STATUS_VALUES = Object.values(STATUS);
export const NEXT_ACTION_VALUES = Object.values(NEXT_ACTION);

export function scanJson(scan: Scan): Record<string, unknown> {
  const json: Record<string, unknown> = {
    run_id: scan.runId,
    status: known(STATUS, scan.status, 'status'),
    next_action: known(NEXT_ACTION, scan.nextAction, 'next_action'),
    retry_after_seconds: scan.retryAfterSeconds,
    progress: scan.progress,
  };
  if (scan.uploadUrl) json.upload_url = scan.uploadUrl;
  if (scan.stage) json.stage = scan.stage;
  if (scan.failureReason) json.failure_reason = scan.failureReason;
  if (scan.saveUrl) json.save_url = scan.saveUrl;
  if (scan.scores.length > 0) json.scores = Object.fromEntries(scan.scores.map((s) => [s.measure, s.score]));
  if (scan.concerns.length > 0) json.scan_concerns = scan.concerns;
  if (scan.createdAt) json.created_at = timestampDate(scan.createdAt).toISOString();
  if (scan.expiresAt) json.expires_at = timestampDate(scan.expiresAt).toISOString();
  if (scan.completedAt) json.completed_at = timestampDate(scan.completedAt).toISOString();
  return json;
}

/** get_skin_scan's answer: the scan, and its used match once there is one. */
export function scanReadJson(res: { scan?: Scan; usedMatch?: UsedMatch }): Record<string, unknown> {
  const json = scanJson(res.scan!);
  const match = res.usedMatch;
  if (match) {
    json.used_match = {
      used_at: timestampDate(match.usedAt!).toISOString(),
      products: match.products.map(productMatchJson),
      left_out: match.leftOut,
      match_basis: match.matchBasis,
    };
  }
  return json;
}

/**
 * A value core sent that this façade has no name for (core newer than the façade, or a bug) is a server
 * fault: the tool answers `unavailable` and logs it, rather than guess a state that misleads the agent.
 */
function known(names: Record<number, string>, value: number, field: string): string {
  const name = names[value];
  if (name === undefined) throw new Error(`core sent a scan ${field} this façade does not know: ${value}`);
  return name;
}

/** JSON Schema of scanJson's output. */
export const SCAN_JSON_PROPERTIES = {
  run_id: { type: 'string', format: 'uuid', description: 'Identifies the scan.' },
  status: { type: 'string', enum: STATUS_VALUES, description: 'Where the scan is in its lifecycle.' },
  next_action: {
    type: 'string',
    enum: NEXT_ACTION_VALUES,
    description:
      'What to do next: share_upload_url (give upload_url to the person, then poll; on a failed scan whose ' +
      'failure_reason is analysis_unavailable, tell them the service could not analyse it and nothing was ' +
      'wrong with the photo: they may send the same photo again in a few minutes), poll (wait, read again), ' +
      'recommend_products (the scan is complete and its match unused: call recommend_products once, with ' +
      'run_id and access_token), ask_person_to_retake (the photo was unusable; the same upload_url takes a ' +
      'new one), none (nothing is left to do with this scan: its match is used; or, on /mcp/account only, ' +
      'you read it by run_id alone, without its access_token, or its access_token has expired — on /mcp ' +
      'every read needs the live access_token; its scores stay readable — do not start another scan just to ' +
      'get more matches; once its match is used, used_match holds the products that match returned: show ' +
      'them to the person again whenever they ask, even if you never saw the answer), start_new_scan (the scan can no longer take a photo: its upload page expired; ' +
      'start a new scan if the person wants one).',
  },
  retry_after_seconds: {
    type: 'integer',
    minimum: 0,
    maximum: 60,
    description: 'Seconds to wait before reading the scan again; 0 when nothing is pending.',
  },
  progress: { type: 'integer', minimum: 0, maximum: 100, description: 'Analysis progress in percent.' },
  stage: {
    type: 'string',
    description:
      'The analysis step under way, while analyzing; `retrying` while the photo waits for another try after the analysis service failed (nothing wrong with the photo).',
  },
  failure_reason: {
    type: 'string',
    description:
      'Why the scan failed: what was wrong with the photo (e.g. no_face, too_dark), or analysis_unavailable ' +
      '(the service could not analyse it for a while; nothing was wrong with the photo).',
  },
  upload_url: {
    type: 'string',
    format: 'uri',
    description:
      'The page the person opens to upload a photo; absent once that page no longer answers (the scan’s ' +
      'access_token expired).',
  },
  save_url: {
    type: 'string',
    format: 'uri',
    description:
      'Lets the person save a completed scan that is in no account yet to theirs; for the person, not the agent.',
  },
  scores: {
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0, maximum: 100 },
    description: 'Cosmetic skin measures 0–100, higher is healthier. Not a diagnosis.',
  },
  scan_concerns: {
    type: 'array',
    items: { type: 'string' },
    maxItems: 6,
    description: 'Concerns, worst first.',
  },
  created_at: { type: 'string', format: 'date-time', description: 'When the scan was started.' },
  expires_at: { type: 'string', format: 'date-time', description: 'When the access token stops working.' },
  completed_at: {
    type: 'string',
    format: 'date-time',
    description:
      'When analysis ended, complete or failed: a failed scan has one too, so read status, not this, to ' +
      'know whether the scan is complete. Absent while no analysis has ended, and again once a new photo ' +
      'is sent.',
  },
} as const;

/** get_skin_scan's used_match: the products a used match returned, shown again (services/match/used-match.ts). */
export const USED_MATCH = {
  type: 'object',
  description:
    'Present once the scan’s one match is used (next_action none): the products recommend_products ' +
    'returned then, best first, as recommend_products gave them. recommend_products now answers no ' +
    'products; show these instead when the person asks for their matches, even if that answer never ' +
    'reached you (a cancelled call, a lost connection, another conversation).',
  properties: {
    used_at: { type: 'string', format: 'date-time', description: 'When the match was used.' },
    products: {
      type: 'array',
      items: PRODUCT_MATCH,
      maxItems: 5,
      description:
        'The products that match returned that the catalog still holds, scored again the same way.',
    },
    left_out: {
      type: 'integer',
      minimum: 0,
      maximum: 5,
      description:
        'How many products that match returned are not in products: withdrawn from the catalog since, or ' +
        'the catalog cannot be read right now (match_basis says which; read the scan again later).',
    },
    match_basis: {
      type: 'string',
      description: 'What the scores were computed against, and why any product is left out.',
    },
  },
  required: ['used_at', 'products', 'left_out', 'match_basis'],
  additionalProperties: false,
} as const;

const SCAN_REQUIRED = ['run_id', 'status', 'next_action', 'retry_after_seconds', 'progress'];

/** A scan as start_skin_scan's and list_my_scans' answers show it. */
export const SCAN_OUTPUT = {
  type: 'object',
  properties: SCAN_JSON_PROPERTIES,
  required: SCAN_REQUIRED,
  additionalProperties: false,
} as const;

/** get_skin_scan's answer (scanReadJson): the scan and, once used, its match's products. */
export const SCAN_READ_OUTPUT = {
  type: 'object',
  properties: { ...SCAN_JSON_PROPERTIES, used_match: USED_MATCH },
  required: SCAN_REQUIRED,
  additionalProperties: false,
} as const;
