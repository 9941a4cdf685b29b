/**
 * The signed-in scan tools on /mcp/account: scans started here belong to the account, and the account's
 * scans are read, listed and deleted by run_id alone (the bearer proves whose they are). Each is a
 * Connect call to core's AccountService with the verified account id.
 */
import type { Client } from '@connectrpc/connect';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import { SCAN_OUTPUT, SCAN_READ_OUTPUT, scanJson, scanReadJson } from './scan-json.ts';
import type { Caller, ToolDefinition } from './tool-definition.ts';
import { ToolError } from './tool-errors.ts';
import { UUID_PATTERN } from './validate.ts';

const RUN_ID = {
  type: 'string',
  pattern: UUID_PATTERN,
  description: 'The run_id of one of your scans.',
} as const;
/**
 * run_id alone names one of the account's scans; with its access_token (the spec's scan identity pair, which
 * a client following the spec sends) the call is exactly the /mcp one, as recommend_products is here.
 */
const RUN_ID_INPUT = {
  type: 'object',
  properties: {
    run_id: RUN_ID,
    access_token: {
      type: 'string',
      pattern: '^[a-f0-9]{64}$',
      description:
        'Optional: the access_token start_skin_scan returned. With it the call works as on /mcp, for the ' +
        'scan whose token it is. A secret: never show it to the person.',
    },
  },
  required: ['run_id'],
  additionalProperties: false,
} as const;
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The verified account of a call on /mcp/account; the endpoint refuses unauthenticated calls before. */
export function accountOf(caller: Caller): string {
  if (!caller.accountId) throw new ToolError('not_found', 'This tool needs a signed-in account.');
  return caller.accountId;
}

/**
 * start_skin_scan as on /mcp (same input and output), but the scan belongs to the account; get_skin_scan and
 * delete_skin_scan by run_id for the account's scans, or as on /mcp with the scan's access_token.
 */
export function accountScanTools(
  accounts: Client<typeof AccountService>,
  guest: (name: string) => ToolDefinition,
): ToolDefinition[] {
  const guestStart = guest('start_skin_scan');
  return [
    {
      ...guestStart,
      description: `${guestStart.description} The scan is kept in your account (list_my_scans).`,
      scope: 'scan:write',
      call: async (args, caller) => {
        const res = await accounts.startAccountScan({
          accountId: accountOf(caller),
          source: String(args.source),
        });
        return { ...scanJson(res.scan!), access_token: res.accessToken, upload_url: res.uploadUrl };
      },
    },
    {
      name: 'get_skin_scan',
      title: 'Read one of your skin scans',
      description:
        'Reads one of your scans by run_id (or any scan by run_id and its access_token, as on /mcp): status, ' +
        'progress and, once complete, its cosmetic skin measures and concerns. Follow next_action and wait ' +
        'retry_after_seconds before reading again. Read by run_id alone, a complete scan says none: ' +
        'recommend_products needs the scan’s access_token (read it with the token to learn whether its match ' +
        'is still there). start_new_scan: the scan’s upload page has expired, so it takes no new photo. ' +
        'Once the scan’s one match is used, used_match holds the products it returned, with when: show them ' +
        'again whenever the person asks for their matches. Results are cosmetic estimates, not a diagnosis.',
      inputSchema: RUN_ID_INPUT,
      outputSchema: SCAN_READ_OUTPUT,
      annotations: READ_ONLY,
      scope: 'scan:read',
      call: async (args, caller) => {
        if (args.access_token !== undefined) return guest('get_skin_scan').call(args, caller);
        const res = await accounts.getAccountScan({
          accountId: accountOf(caller),
          runId: String(args.run_id),
        });
        return scanReadJson(res);
      },
    },
    {
      name: 'delete_skin_scan',
      title: 'Delete one of your skin scans',
      description:
        'Deletes one of your scans by run_id (or any scan by run_id and its access_token, as on /mcp) and ' +
        'everything derived from it; its access_token stops working.',
      inputSchema: RUN_ID_INPUT,
      outputSchema: {
        type: 'object',
        properties: { run_id: RUN_ID, deleted: { type: 'boolean', const: true } },
        required: ['run_id', 'deleted'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      scope: 'scan:write',
      call: async (args, caller) => {
        if (args.access_token !== undefined) return guest('delete_skin_scan').call(args, caller);
        const res = await accounts.deleteAccountScan({
          accountId: accountOf(caller),
          runId: String(args.run_id),
        });
        return { run_id: res.runId, deleted: res.deleted };
      },
    },
    {
      name: 'list_my_scans',
      title: 'List your skin scans',
      description: 'Lists the scans in your account, newest first, a page at a time (page_token continues).',
      inputSchema: {
        type: 'object',
        properties: {
          page_size: {
            type: 'integer',
            minimum: 1,
            maximum: 100,
            description: 'At most this many (default 20).',
          },
          page_token: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            description: 'The next_page_token of the previous page, as it was given.',
          },
        },
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          scans: { type: 'array', items: SCAN_OUTPUT, maxItems: 100 },
          next_page_token: { type: 'string', description: 'Continues the listing; absent on the last page.' },
        },
        required: ['scans'],
        additionalProperties: false,
      },
      annotations: READ_ONLY,
      scope: 'scan:read',
      call: async (args, caller) => {
        const res = await accounts.listAccountScans({
          accountId: accountOf(caller),
          pageSize: (args.page_size as number | undefined) ?? 0,
          pageToken: (args.page_token as string | undefined) ?? '',
        });
        return {
          scans: res.scans.map(scanJson),
          ...(res.nextPageToken ? { next_page_token: res.nextPageToken } : {}),
        };
      },
    },
    deleteMyServiceData(accounts),
  ];
}

const COUNT = { type: 'integer', minimum: 0 } as const;

function deleteMyServiceData(accounts: Client<typeof AccountService>): ToolDefinition {
  return {
    name: 'delete_my_service_data',
    title: 'Delete all your skinmatch data',
    description:
      'Deletes your skinmatch account and everything the service keeps about you: your sign-in identities, ' +
      'scans and any stored photos, and every grant and token given to apps. Answers with what was deleted. ' +
      'The token of this call stops working at once; signing in again later starts a new, empty account. ' +
      'Ask the person to confirm first: this cannot be undone.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: {
      type: 'object',
      properties: {
        deleted: {
          type: 'object',
          properties: {
            accounts: COUNT,
            identities: COUNT,
            scans: COUNT,
            photos: COUNT,
            grants: COUNT,
            tokens: COUNT,
          },
          required: ['accounts', 'identities', 'scans', 'photos', 'grants', 'tokens'],
          additionalProperties: false,
        },
      },
      required: ['deleted'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // Deleting everything takes at least what deleting one scan takes: a client the person allowed only to
    // read (scans or the catalog) must not be able to erase the account.
    scope: 'scan:write',
    call: async (_args, caller) => {
      const d = await accounts.deleteAccountData({ accountId: accountOf(caller) });
      return {
        deleted: {
          accounts: d.accounts,
          identities: d.identities,
          scans: d.scans,
          photos: d.photos,
          grants: d.grants,
          tokens: d.tokens,
        },
      };
    },
  };
}
