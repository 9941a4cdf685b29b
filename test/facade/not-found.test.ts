/**
 * An address no route answers, as a person meets it in a browser (a link mistyped or cut short when copied):
 * a page in words with a title, a language and a next step, the pages' headers, nothing for axe-core; other
 * clients keep the plain 404.
 */
import assert from 'node:assert/strict';
import { NOT_FOUND_PAGE } from '../../facade/not-found.ts';
import { assertAccessible } from '../intake/scan-page-browser-support.ts';
import { browserSuite } from '../support/browser.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('an address no route answers', function () {
  this.timeout(60_000);
  let stack: Stack;
  const browser = browserSuite();

  before(async () => {
    stack = await startStack('not-found');
  });
  after(() => stack?.close());

  it('in a browser: a 404 page in words, with the pages’ headers and nothing for axe-core', async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 640 } });
    for (const path of ['/', '/sca', '/scan', '/save/', '/authorize/x/y']) {
      const response = await page.goto(`${stack.baseUrl}${path}`);
      assert.equal(response?.status(), 404, path);
      assertPageHeaders(await response!.allHeaders());
      assert.equal(await page.title(), 'This page does not exist', path);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.match(
        (await page.textContent('#description')) ?? '',
        /Open the link your assistant gave you again/,
      );
      await assertAccessible(page, `404 at ${path}`);
    }
  });

  it('other clients, and HEAD: the plain 404', async () => {
    const plain = await fetch(`${stack.baseUrl}/nope`);
    assert.equal(plain.status, 404);
    assert.equal(await plain.text(), 'Not Found');
    const json = await fetch(`${stack.baseUrl}/nope`, { headers: { accept: 'application/json' } });
    assert.equal(json.status, 404);
    assert.equal(await json.text(), 'Not Found');
    const head = await fetch(`${stack.baseUrl}/nope`, { method: 'HEAD', headers: { accept: 'text/html' } });
    assert.equal(head.status, 404);
    assert.equal(head.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(
      head.headers.get('content-length'),
      String(
        Buffer.byteLength(NOT_FOUND_PAGE.replace('<style>', '<style nonce="0000000000000000000000==">')),
      ),
    );
  });
});
