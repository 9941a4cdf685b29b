// The bot check's checkbox on the upload page, as a person sees it: its border, the only thing that shows
// where to tap, is at 3:1 at least (WCAG 1.4.11) against the box's own background and the page around it,
// measured in Chromium on the colours the widget is drawn with. The widget's own grey (altcha 3.2.2's
// --altcha-checkbox-border-color) measures 3.06:1 on white, so the page keeps it: an upgrade that lightens
// it fails here, and the page's stylesheet would then set that variable.
import assert from 'node:assert/strict';
import { borderContrast } from '../support/contrast.ts';
import { phoneSuite } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

describe('the upload page’s bot check checkbox', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-bot-check-contrast');

  it('has a border at 3:1 at least inside and out, before it is ticked', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await phone.newPage();
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    const box = '#altcha-checkbox-challenge';
    await page.waitForSelector(`${box}:enabled`);
    const measured = await borderContrast(page, box);
    assert.ok(measured.inside >= 3 && measured.outside >= 3, JSON.stringify(measured));
  });
});
