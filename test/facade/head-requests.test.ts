/**
 * HEAD on the façade's GET resources: HTTP requires a server to answer HEAD wherever it answers GET, with
 * the same status and headers and no body. Uptime monitors probe /health with HEAD, and link checkers and
 * chat apps' previews ask for the person's upload link with HEAD: a 405 or a 404 there reads as "down" or
 * "broken link"; so does the save link. The page's JSON calls, its event stream and the save page's sign-in
 * link (which starts a sign-in) stay GET or POST only.
 */
import assert from 'node:assert/strict';
import { SCAN_NOT_FOUND_HTML } from '../../facade/pages/scan-html.ts';
import { pageFetch, startScan } from '../intake/scan-page-support.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('HEAD on the façade’s GET resources', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('head-requests');
  });
  after(() => stack?.close());

  async function head(path: string): Promise<Response> {
    const res = await pageFetch(stack.baseUrl, path, { method: 'HEAD' });
    assert.equal(await res.text(), '', `HEAD ${path} sent a body`);
    return res;
  }

  for (const path of ['/health', '/ready']) {
    it(`${path}: HEAD answers as GET does, without a body; other methods 405 with Allow: GET, HEAD`, async () => {
      const get = await fetch(`${stack.baseUrl}${path}`);
      const res = await head(path);
      assert.equal(res.status, get.status);
      assert.equal(res.headers.get('content-type'), get.headers.get('content-type'));
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('content-length'), String((await get.arrayBuffer()).byteLength));
      const post = await fetch(`${stack.baseUrl}${path}`, { method: 'POST' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
    });
  }

  it('/scan/:id: HEAD answers 200 with the page’s headers; an unknown id the same 404 as GET', async () => {
    const scan = await startScan(stack.baseUrl);
    const res = await head(`/scan/${scan.run_id}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assertPageHeaders(res.headers);
    const unknown = await head('/scan/00000000-0000-4000-8000-000000000000');
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(unknown.headers.get('content-length'), String(Buffer.byteLength(SCAN_NOT_FOUND_HTML)));
    assert.equal((await head('/scan/not-a-uuid')).status, 404);
  });

  it('/scan/assets/:file: HEAD answers 200 with the file’s type and length; the JSON calls and stream stay GET', async () => {
    const get = await pageFetch(stack.baseUrl, '/scan/assets/scan-page.js');
    const res = await head('/scan/assets/scan-page.js');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    // Sent compressed to fetch, as to a browser (test/facade/asset-compression.test.ts): the length as sent.
    assert.equal(res.headers.get('content-encoding'), get.headers.get('content-encoding'));
    assert.equal(res.headers.get('content-length'), get.headers.get('content-length'));
    assert.ok(Number(res.headers.get('content-length')) > 0);
    const scan = await startScan(stack.baseUrl);
    for (const call of ['state', 'challenge', 'events']) {
      assert.equal((await head(`/scan/${scan.run_id}/${call}`)).status, 404, call);
    }
  });

  it('/save/:id: HEAD answers with GET’s status and type, known id or not; the sign-in link stays GET only', async () => {
    const scan = await startScan(stack.baseUrl);
    for (const id of [scan.run_id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const get = await pageFetch(stack.baseUrl, `/save/${id}`);
      const res = await head(`/save/${id}`);
      assert.equal(res.status, get.status, id);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('content-length'), String((await get.arrayBuffer()).byteLength), id);
    }
    assert.equal((await head(`/save/${scan.run_id}/sign-in/dev1`)).status, 404);
  });
});
