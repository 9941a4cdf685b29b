/**
 * Core's own checks of scan requests. The façade validates first with the same codes, but core enforces
 * every rule itself because internal systems call it directly.
 */
import { serviceError } from '../shared/errors.ts';
import { characterCount } from '../shared/text.ts';
import { TOKEN_PATTERN } from './token.ts';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const SOURCE_MAX_LENGTH = 100;

export interface ScanIdentity {
  readonly runId: string;
  readonly accessToken: string;
}

export function checkIdentity(req: ScanIdentity): ScanIdentity {
  if (req.runId === '') throw serviceError('scan_required', 'run_id is required.');
  if (!UUID_PATTERN.test(req.runId))
    throw serviceError('invalid_input', 'run_id must be a UUID.', { field: 'run_id' });
  if (!TOKEN_PATTERN.test(req.accessToken)) {
    throw serviceError('invalid_input', 'access_token must be 64 lowercase hexadecimal characters.', {
      field: 'access_token',
    });
  }
  return { runId: req.runId.toLowerCase(), accessToken: req.accessToken };
}

export function checkSource(source: string): string {
  const trimmed = source.trim();
  if (trimmed === '') {
    throw serviceError('invalid_input', 'source must not be empty or only spaces.', { field: 'source' });
  }
  if (characterCount(trimmed) > SOURCE_MAX_LENGTH) {
    throw serviceError('invalid_input', `source must be at most ${SOURCE_MAX_LENGTH} characters.`, {
      field: 'source',
    });
  }
  return trimmed;
}
