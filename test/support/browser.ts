/** Headless Chromium (the Debian package) for the person's pages. */
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-background-networking'],
  });
}

/**
 * For a describe of browser pages: one Chromium for the whole suite (launched before it, closed after it),
 * and a context per page, closed after its test.
 */
export function browserSuite() {
  const contexts: BrowserContext[] = [];
  const suite = {
    browser: undefined as unknown as Browser,
    async newContext(options?: BrowserContextOptions): Promise<BrowserContext> {
      const context = await suite.browser.newContext(options);
      contexts.push(context);
      return context;
    },
    /** A page in a context of its own; it accepts every dialog (the page's "Delete this scan?"). */
    async newPage(options?: BrowserContextOptions): Promise<Page> {
      const page = await (await suite.newContext(options)).newPage();
      page.on('dialog', (dialog) => dialog.accept());
      return page;
    },
  };
  before(async () => {
    suite.browser = await launchBrowser();
  });
  after(async () => {
    await suite.browser?.close();
  });
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  return suite;
}
