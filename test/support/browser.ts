/** Headless Chromium (the Debian package) for the person's pages. */
import { type Browser, chromium } from 'playwright-core';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-background-networking'],
  });
}
