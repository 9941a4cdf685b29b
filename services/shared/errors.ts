/**
 * One error vocabulary for the whole service: the tool error codes of the spec travel as the `reason` of a
 * `google.rpc.ErrorInfo` detail (domain "skinmatch") on a `ConnectError` with the matching built-in code.
 * The façade reads the reason back and never invents codes of its own.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';

export const ERROR_DOMAIN = 'skinmatch';

const CODES = {
  invalid_input: Code.InvalidArgument,
  scan_required: Code.InvalidArgument,
  scan_not_ready: Code.FailedPrecondition,
  scan_not_uploaded: Code.FailedPrecondition,
  not_found: Code.NotFound,
  catalog_unavailable: Code.Unavailable,
  rate_limited: Code.ResourceExhausted,
  admissions_paused: Code.Unavailable,
  unavailable: Code.Unavailable,
  // The person's upload page (IntakeService); never a tool result.
  challenge_failed: Code.PermissionDenied,
  consent_required: Code.FailedPrecondition,
  consent_taken: Code.PermissionDenied,
  not_consenting_browser: Code.PermissionDenied,
  upload_closed: Code.FailedPrecondition,
  not_an_image: Code.InvalidArgument,
  photo_too_large: Code.InvalidArgument,
  photo_too_many_pixels: Code.InvalidArgument,
  // The save page (AccountService.SaveScan); never a tool result.
  saved_to_another_account: Code.FailedPrecondition,
} as const;

export type ErrorReason = keyof typeof CODES;

export function isErrorReason(value: string): value is ErrorReason {
  return Object.hasOwn(CODES, value);
}

/** A client-facing error carrying the spec's code as its ErrorInfo reason. */
export function serviceError(reason: ErrorReason, message: string, metadata: Record<string, string> = {}) {
  const info = create(ErrorInfoSchema, { reason, domain: ERROR_DOMAIN, metadata });
  return new ConnectError(message, CODES[reason], undefined, [{ desc: ErrorInfoSchema, value: info }]);
}

/** The spec's code an error carries, if it is one of ours. */
export function errorReason(err: unknown): ErrorReason | undefined {
  const connectError = ConnectError.from(err);
  for (const info of connectError.findDetails(ErrorInfoSchema)) {
    if (info.domain === ERROR_DOMAIN && isErrorReason(info.reason)) return info.reason;
  }
  return undefined;
}

/** The same message for a wrong token, an unknown, expired or deleted scan: nothing to probe. */
export const NOT_FOUND_MESSAGE =
  'No scan matches this run_id and access_token: it was deleted, has expired (a guest scan’s access_token stops working seven days after it was issued) or never existed. Start a new scan only if the person asks for one.';
