/**
 * How an answer on /mcp is framed, from the request's Accept header. The server always has exactly one
 * JSON-RPC message to send back, so it needs no stream: it answers `application/json` to every client that
 * takes JSON — the MCP clients' `application/json, text/event-stream`, and also a client that sends only
 * `application/json` (some Claude Code and agent SDK versions), a wildcard for any type or any
 * application type (generic HTTP clients), media types in other cases (they are case-insensitive, RFC 9110 §8.3.1), or no Accept at all
 * (which accepts anything, RFC 9110 §12.5.1). A client that takes only `text/event-stream` (as some
 * connector proxies send) gets the same message as one SSE `message` event, which MCP clients parse. Only
 * an Accept that admits neither (with q=0 refusing a type) is 406.
 */
import { remembered } from '../net.ts';

export type AnswerFormat = 'json' | 'sse';

/** Remembered: a client sends the same Accept on every request. */
export const answerFormat = remembered(formatOf, 200);

function formatOf(accept: string): AnswerFormat | undefined {
  if (accept.trim() === '') return 'json';
  let sse = false;
  for (const range of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = range.split(';');
    const media = type.trim();
    if (params.some((param) => /^\s*q\s*=\s*0(?:\.0{0,3})?\s*$/.test(param))) continue;
    if (media === 'application/json' || media === 'application/*' || media === '*/*') return 'json';
    if (media === 'text/event-stream' || media === 'text/*') sse = true;
  }
  return sse ? 'sse' : undefined;
}

/** One JSON-RPC message as the body of a `text/event-stream` answer: a single `message` event. */
export function sseEvent(message: unknown): string {
  // JSON.stringify escapes every line break, so the message is one `data:` line.
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
