/**
 * The last middleware: a page a person can read for an address no route answers, when a browser asks for a
 * page (a link mistyped or cut short when it was copied: `/sca`, `/scan`, the bare host). Koa's default was
 * the words "Not Found" as plain text: no language, no title, nothing to do next. Other clients (Accept without
 * text/html: the MCP SDK, curl, probes) keep the plain 404.
 */
import type { Middleware } from 'koa';
import { page, sendPage } from './oauth/pages.ts';

export const NOT_FOUND_PAGE = page(
  'This page does not exist',
  '<p id="description">The address may be mistyped, or cut short when it was copied. Open the link your ' +
    'assistant gave you again, or ask it for a new one.</p>',
);

export const notFoundPage: Middleware = async (ctx, next) => {
  await next();
  const navigation =
    (ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('accept').includes('text/html');
  if (ctx.status === 404 && ctx.body == null && navigation) sendPage(ctx, 404, NOT_FOUND_PAGE);
};
