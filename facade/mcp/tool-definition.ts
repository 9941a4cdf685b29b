/** What a tool is to the façade: its MCP listing and the function that serves a call. */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../oauth/scopes.ts';
import type { InputSchema } from './validate.ts';

/** Who is calling: on /mcp/account the verified account; on /mcp nobody in particular. */
export interface Caller {
  readonly accountId?: string;
  /** Aborted when the call is given up (its HTTP client went away, or its deadline passed). */
  readonly signal?: AbortSignal;
}

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: InputSchema;
  /** The success shape; the shared error branch is added when the tool is listed. */
  readonly outputSchema: Record<string, unknown> & { type: 'object' };
  readonly annotations: ToolAnnotations;
  /** On /mcp/account, the scope a bearer needs to call it (none: any signed-in account). */
  readonly scope?: Scope;
  /** Serves a call whose arguments passed inputSchema; returns the structured result. */
  readonly call: (args: Record<string, unknown>, caller: Caller) => Promise<Record<string, unknown>>;
}
