/**
 * The upload link with a trailing slash (`/scan/:id/`), as a person may paste it or an agent write it: it
 * leads to the page, as `/mcp/` is `/mcp`, and never to a bare "Not Found" the person cannot act on. It
 * tells nothing of the scan: every UUID is redirected alike, anything else gets the one 404 page.
 */
import assert from 'node:assert/strict';
import { SCAN_NOT_FOUND_HTML } from '../../facade/pages/scan-html.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { pageFetch, startScan } from './scan-page-support.ts';

describe('the upload link with a trailing slash', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('scan-page-address');
  });
  after(() => stack?.close());

  const open = (path: string, method = 'GET') =>
    pageFetch(stack.baseUrl, path, { method, headers: {} }).then(async (res) => ({
      res,
      body: await res.text(),
    }));

  it('/scan/:id/ redirects (308) to /scan/:id, for a known and an unknown id alike; following it opens the page', async () => {
    const scan = await startScan(stack.baseUrl);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [id, target] of [
      [scan.run_id, scan.run_id],
      [scan.run_id.toUpperCase(), scan.run_id],
      [unknown, unknown],
    ]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await fetch(`${stack.baseUrl}/scan/${id}/`, { method, redirect: 'manual' });
        assert.equal(res.status, 308, `${method} ${id}`);
        assert.equal(res.headers.get('location'), `/scan/${target}`);
        assertPageHeaders(res.headers);
      }
    }
    const followed = await fetch(`${stack.baseUrl}/scan/${scan.run_id}/`);
    assert.equal(followed.status, 200);
    assert.match(followed.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await followed.text(), new RegExp(scan.run_id));
    const gone = await fetch(`${stack.baseUrl}/scan/${unknown}/`);
    assert.equal(gone.status, 404);
    assert.equal(await gone.text(), SCAN_NOT_FOUND_HTML);
  });

  it('anything but a UUID before the slash gets the one 404 page; a POST is not redirected', async () => {
    for (const path of ['/scan/not-a-uuid/', '/scan/assets/']) {
      const { res, body } = await open(path);
      assert.equal(res.status, 404, path);
      assert.equal(body, SCAN_NOT_FOUND_HTML, path);
    }
    const scan = await startScan(stack.baseUrl);
    const { res } = await open(`/scan/${scan.run_id}/`, 'POST');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('location'), null);
  });
});
