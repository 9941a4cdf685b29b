/** What a tool is to the façade: its MCP listing and the function that serves a call. */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { InputSchema } from './validate.ts';

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: InputSchema;
  /** The success shape; the shared error branch is added when the tool is listed. */
  readonly outputSchema: Record<string, unknown> & { type: 'object' };
  readonly annotations: ToolAnnotations;
  /** Serves a call whose arguments passed inputSchema; returns the structured result. */
  readonly call: (args: Record<string, unknown>) => Promise<Record<string, unknown>>;
}
