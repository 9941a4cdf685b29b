/**
 * The upload page's files go compressed to a browser that accepts it (Brotli first, then gzip), whole to one
 * that does not: the bot-check widget's ~83 KB script went whole to every phone. The caching headers, the
 * length (of what is sent), HEAD and the security headers stay; `Vary: Accept-Encoding` keeps a cache from
 * handing one encoding to a browser that asked for another. Raw HTTP, to see the bytes as sent.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ASSET_VERSION, ASSETS } from '../../facade/pages/scan-assets.ts';
import { type Stack, startStack } from '../support/stack.ts';

interface Raw {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

function raw(url: string, acceptEncoding: string | undefined, method = 'GET'): Promise<Raw> {
  return new Promise((done, fail) => {
    const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    http
      .request(url, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          done({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', fail)
      .end();
  });
}

describe('the upload page’s files, compressed for browsers that accept it', function () {
  this.timeout(60_000);
  let stack: Stack;
  const widget = readFileSync(ASSETS['altcha.js']!.path);

  before(async () => {
    stack = await startStack('asset-compression');
  });
  after(() => stack?.close());

  const url = (file: string, version: string | null = ASSET_VERSION) =>
    `${stack.baseUrl}/scan/assets/${version === null ? '' : `${version}/`}${file}`;

  function assertKept(res: Raw, cacheControl: string): void {
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(res.headers['cache-control'], cacheControl);
    assert.match(res.headers.vary ?? '', /accept-encoding/i);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin');
  }

  it('Brotli, then gzip, as the browser asks; whole without Accept-Encoding', async () => {
    const immutable = 'public, max-age=31536000, immutable';
    const br = await raw(url('altcha.js'), 'gzip, deflate, br, zstd');
    assertKept(br, immutable);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-length'], String(br.body.length));
    assert.deepEqual(brotliDecompressSync(br.body), widget);
    assert.ok(br.body.length < widget.length / 2, `${widget.length} → ${br.body.length} bytes`);

    for (const accept of ['gzip', 'br;q=0, gzip', 'gzip;q=1, br;q=0.5']) {
      const gz = await raw(url('altcha.js'), accept);
      assertKept(gz, immutable);
      assert.equal(gz.headers['content-encoding'], 'gzip', accept);
      assert.equal(gz.headers['content-length'], String(gz.body.length));
      assert.deepEqual(gunzipSync(gz.body), widget);
    }

    for (const accept of [undefined, 'identity', 'deflate', 'br;q=0, gzip;q=0']) {
      const whole = await raw(url('altcha.js'), accept);
      assertKept(whole, immutable);
      assert.equal(whole.headers['content-encoding'], undefined, accept);
      assert.equal(whole.headers['content-length'], String(widget.length));
      assert.deepEqual(whole.body, widget);
    }
    // Under its plain name: compressed too, asked for again each time.
    const plain = await raw(url('altcha.js', null), 'br');
    assertKept(plain, 'no-cache');
    assert.deepEqual(brotliDecompressSync(plain.body), widget);
  });

  it('the page’s own scripts and style too; HEAD has GET’s headers and length, no body', async () => {
    for (const file of ['scan-page.js', 'scan-page.css', 'altcha.css']) {
      const get = await raw(url(file), 'br');
      assert.equal(get.headers['content-encoding'], 'br', file);
      assert.deepEqual(brotliDecompressSync(get.body), readFileSync(ASSETS[file]!.path), file);
      const head = await raw(url(file), 'br', 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body.length, 0);
      for (const name of ['content-encoding', 'content-length', 'content-type', 'vary', 'cache-control'])
        assert.equal(head.headers[name], get.headers[name], `${file}: ${name}`);
    }
  });
});
