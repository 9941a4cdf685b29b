// What the upload page says is wrong is tied to the control it is about: a screen reader that lands on the
// consent box or the photo picker reads the words with it (its accessible description, as Chromium computes
// it), and the box left unticked is marked invalid until the person agrees.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { PAGE_WORDS } from '../../facade/pages/scan-html.ts';
import { phoneSuite, shown } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

describe('the upload page ties its error words to the control', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-error-inputs');

  /** The control's accessible name, description and invalid state, from Chromium's accessibility tree. */
  async function accessible(page: Page, selector: string) {
    const cdp = await page.context().newCDPSession(page);
    const { root } = await cdp.send('DOM.getDocument');
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const node = nodes[0]!;
    const invalid = node.properties?.find((p) => p.name === 'invalid')?.value.value;
    return { description: String(node.description?.value ?? ''), invalid: invalid ?? 'false' };
  }

  it('the consent box left unticked: invalid, described by the words; ticked and agreed, no more', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await phone.newPage();
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    await page.waitForSelector('#consent-submit:enabled');
    assert.equal((await accessible(page, '#consent-check')).invalid, 'false');
    await page.tap('#consent-submit');
    const refused = await accessible(page, '#consent-check');
    assert.equal(refused.invalid, 'true');
    assert.ok(refused.description.includes(PAGE_WORDS.needConsent), refused.description);
    await page.tap('#consent-check');
    await page.tap('#consent-submit');
    await shown(page, 'photo', 30_000);
    assert.equal((await accessible(page, '#consent-check')).invalid, 'false');
  });

  it('a file that is no photo: the photo pickers are described by the words', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await phone.newPage();
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    await page.tap('#consent-check');
    await page.tap('#consent-submit');
    await shown(page, 'photo', 30_000);
    const text = join(resolve('.data/test-photos'), 'not-a-photo.jpg');
    writeFileSync(text, 'a text file named as a photo');
    await page.setInputFiles('#file', text);
    await page.locator('#alert', { hasText: PAGE_WORDS.unreadable }).waitFor();
    for (const picker of ['#file', '#selfie']) {
      const { description } = await accessible(page, picker);
      assert.ok(description.includes(PAGE_WORDS.unreadable), `${picker}: ${description}`);
    }
  });
});
