/**
 * The guest scan tools: start_skin_scan, get_skin_scan, delete_skin_scan. Each is one Connect call to
 * core's ScanService; the descriptions tell an agent what each step needs.
 */
import type { Client } from '@connectrpc/connect';
import type { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { SCAN_JSON_PROPERTIES, SCAN_READ_OUTPUT, scanJson, scanReadJson } from './scan-json.ts';
import type { ToolDefinition } from './tool-definition.ts';
import { UUID_PATTERN } from './validate.ts';

const RUN_ID = {
  type: 'string',
  pattern: UUID_PATTERN,
  description: 'The run_id that start_skin_scan returned.',
} as const;
const ACCESS_TOKEN = {
  type: 'string',
  pattern: '^[a-f0-9]{64}$',
  description: 'The access_token that start_skin_scan returned. A secret: never show it to the person.',
} as const;
const SCAN_IDENTITY_INPUT = {
  type: 'object',
  properties: { run_id: RUN_ID, access_token: ACCESS_TOKEN },
  required: ['run_id', 'access_token'],
  additionalProperties: false,
} as const;

export function scanTools(scans: Client<typeof ScanService>): ToolDefinition[] {
  return [
    {
      name: 'start_skin_scan',
      title: 'Start a skin scan',
      description:
        'Starts a cosmetic facial skin-analysis scan for a person. Returns run_id, access_token and ' +
        'upload_url. Give upload_url to the person: they open it in a browser and take or upload the photo ' +
        'themselves; never upload a photo yourself. Keep access_token secret (never log it or show it to ' +
        'the person) and pass it with run_id to get_skin_scan, recommend_products and delete_skin_scan. ' +
        'Then poll get_skin_scan, following next_action and retry_after_seconds.',
      inputSchema: {
        type: 'object',
        properties: {
          source: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            description:
              'Where the request comes from, e.g. the name of your agent platform: up to 100 characters, ' +
              'not empty or only spaces.',
          },
        },
        required: ['source'],
        additionalProperties: false,
      },
      outputSchema: {
        type: 'object',
        properties: {
          ...SCAN_JSON_PROPERTIES,
          access_token: {
            type: 'string',
            pattern: '^[a-f0-9]{64}$',
            description: 'The scan’s private capability. A secret: never show it to the person.',
          },
        },
        required: ['run_id', 'access_token', 'upload_url', 'status', 'next_action', 'retry_after_seconds'],
        additionalProperties: false,
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      call: async (args) => {
        const res = await scans.startScan({ source: String(args.source) });
        return { ...scanJson(res.scan!), access_token: res.accessToken, upload_url: res.uploadUrl };
      },
    },
    {
      name: 'get_skin_scan',
      title: 'Read a skin scan',
      description:
        'Reads a scan: its status, progress and, once complete, its cosmetic skin measures and concerns. ' +
        'Follow next_action and wait retry_after_seconds before reading again. When next_action is ' +
        'recommend_products, call recommend_products once. When it is ask_person_to_retake, tell the person ' +
        'why (failure_reason) and ask for a new photo through the same upload_url. When a failed scan says ' +
        'share_upload_url, the service was unavailable (analysis_unavailable), not the photo at fault: give ' +
        'the person upload_url again to send it in a few minutes. When it is none, nothing ' +
        'is left to do with this scan (its one match is used); used_match then holds the products that ' +
        'match returned, with when: show them again whenever the person asks for their matches, even if ' +
        'the recommend_products answer never reached you. Results are cosmetic ' +
        'estimates, not a diagnosis; do not infer a skin type from them.',
      inputSchema: SCAN_IDENTITY_INPUT,
      outputSchema: SCAN_READ_OUTPUT,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      call: async (args) => {
        const res = await scans.getScan({
          runId: String(args.run_id),
          accessToken: String(args.access_token),
        });
        return scanReadJson(res);
      },
    },
    {
      name: 'delete_skin_scan',
      title: 'Delete a skin scan',
      description:
        'Deletes a scan and everything derived from it; its access_token stops working at once. Use it when ' +
        'the person asks to forget the scan.',
      inputSchema: SCAN_IDENTITY_INPUT,
      outputSchema: {
        type: 'object',
        properties: { run_id: RUN_ID, deleted: { type: 'boolean', const: true } },
        required: ['run_id', 'deleted'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      call: async (args) => {
        const res = await scans.deleteScan({
          runId: String(args.run_id),
          accessToken: String(args.access_token),
        });
        return { run_id: res.runId, deleted: res.deleted };
      },
    },
  ];
}
