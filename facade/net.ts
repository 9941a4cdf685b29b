/**
 * The client's address, as every part of the façade reads it (`ctx.ip`: rate limits of the MCP endpoints,
 * the upload page, the authorization server and its pages). Behind a proxy (TRUST_PROXY) Koa takes the
 * X-Forwarded-For entry as the proxy wrote it, and some proxies write the client's port with it (Azure
 * Application Gateway: `203.0.113.7:51234`, `[2001:db8::1]:443`): every connection was then a network of
 * its own, and no limit held. So the address is parsed once per request, at the start: `ip`, `ip:port`,
 * `[v6]`, `[v6]:port`, IPv4-mapped IPv6 as plain IPv4. An entry that is none of these (`unknown`, garbage:
 * a proxy set up wrong) would put its clients in one shared budget, or each in one of its own: the socket's
 * address is used instead, and a warning logged once (the misconfiguration, not each request).
 */
import ipaddr from 'ipaddr.js';
import type { Middleware } from 'koa';
import type { Logger } from '../services/shared/logger.ts';

/** Longer than any address entry: `[` an IPv6 address with an IPv4 tail and a zone `]:port`. */
const MAX_ADDRESS_TEXT = 100;

/**
 * `fn` with its answers remembered, for pure functions of short text that every request asks again (a
 * client's address, its Accept header: the same on each of its requests): parsing an address with
 * ipaddr.js was 3 % of the façade's CPU time under bench:facade (docs/data-path.md). Text longer than
 * `maxLength` (by default longer than any address) is not remembered, and past `max` entries everything
 * is forgotten at once, so what a client sends bounds nothing but a moment's work.
 */
export function remembered<T>(
  fn: (text: string) => T,
  maxLength = MAX_ADDRESS_TEXT,
  max = 10_000,
): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    const known = seen.get(text);
    if (known !== undefined || seen.has(text)) return known as T;
    const answer = fn(text);
    if (text.length <= maxLength) {
      if (seen.size >= max) seen.clear();
      seen.set(text, answer);
    }
    return answer;
  };
}

/** The IP address an address entry names (normalised: IPv4-mapped IPv6 as IPv4), or undefined. */
export const parseAddress = remembered(parseAddressOnce);

function parseAddressOnce(entry: string): string | undefined {
  const text = entry.trim();
  const host = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text)?.[1] ?? /^([^:]+):\d{1,5}$/.exec(text)?.[1] ?? text;
  return ipaddr.isValid(host) ? ipaddr.process(host).toString() : undefined;
}

/** Sets `ctx.ip` to the parsed client address, the socket's when the forwarded one cannot be parsed. */
export function clientAddress(logger: Logger): Middleware {
  let warned = false;
  return async (ctx, next) => {
    const entry = ctx.ip;
    let address = parseAddress(entry);
    if (address === undefined) {
      const socket = ctx.req.socket.remoteAddress ?? '';
      address = parseAddress(socket) ?? socket;
      if (!warned && entry !== socket) {
        warned = true;
        logger.warn(
          { forwarded: entry.slice(0, 100), socket: address },
          'client address: an X-Forwarded-For entry is not an IP address (with or without a port); ' +
            "such requests count against the connecting proxy's address (check TRUST_PROXY and the proxy)",
        );
      }
    }
    ctx.request.ip = address;
    await next();
  };
}
