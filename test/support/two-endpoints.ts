/**
 * A stack with one account and a real MCP SDK client on each endpoint: `guest` on /mcp, `account` on
 * /mcp/account signed in as that account. Registers the describe block's hooks; tests read the fields.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createAccount, mintToken } from './bearer.ts';
import { connectSdkClient } from './mcp.ts';
import { type Stack, type StackOptions, startStack } from './stack.ts';

export interface TwoEndpoints {
  readonly stack: Stack;
  readonly accountId: string;
  readonly guest: Client;
  readonly account: Client;
}

export function twoEndpoints(name: string, options: StackOptions = {}): TwoEndpoints {
  const ends: { -readonly [K in keyof TwoEndpoints]?: TwoEndpoints[K] } = {};
  before(async () => {
    const stack = await startStack(name, options);
    ends.stack = stack;
    ends.accountId = await createAccount(stack.coreUrl, name);
    ends.guest = await connectSdkClient(stack.baseUrl);
    ends.account = await connectSdkClient(stack.baseUrl, '/mcp/account', {
      authorization: `Bearer ${await mintToken(stack, ends.accountId)}`,
    });
  });
  after(async () => {
    await ends.guest?.close();
    await ends.account?.close();
    await ends.stack?.close();
  });
  return ends as TwoEndpoints;
}

/** A tool call's outcome as the tests compare it: whether it is an error, and its structured content. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  return { isError: result.isError, body: result.structuredContent as Record<string, any> };
}

/** A tool call that must succeed: its structured content. */
export async function readTool(client: Client, name: string, args: Record<string, unknown>) {
  const { isError, body } = await callTool(client, name, args);
  assert.equal(isError, undefined, JSON.stringify(body));
  return body;
}
