/**
 * The focus ring as a person sees it: drawn (an outline of some width) and, WCAG 1.4.11, at a contrast of at
 * least 3:1 against the background it is drawn on (the nearest ancestor's opaque background: with an offset
 * the ring lies outside the control, on the page).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { CONTRAST_JS } from './contrast.ts';

/** The focused element's ring: its description, outline width and contrast against the background behind it. */
export async function focusRing(page: Page): Promise<{ what: string; width: string; contrast: number }> {
  return (await page.evaluate(`(() => {
    ${CONTRAST_JS}
    // A visually hidden file input shows its ring on its label, the visible button (scan-page.css).
    const focused = document.activeElement;
    const e = focused.type === 'file' && focused.labels?.[0] ? focused.labels[0] : focused;
    const style = getComputedStyle(e);
    return {
      what: focused.tagName + '#' + focused.id + ' ' + (e.textContent ?? '').trim().slice(0, 30),
      width: style.outlineStyle === 'none' ? '0px' : style.outlineWidth,
      contrast: contrast(style.outlineColor, backgroundBehind(e)),
    };
  })()`)) as { what: string; width: string; contrast: number };
}

/** The focused element shows a ring at least 2 px wide at a contrast of at least 3:1. */
export async function assertFocusRing(page: Page): Promise<void> {
  const ring = await focusRing(page);
  assert.ok(Number.parseFloat(ring.width) >= 2, `no ring on ${ring.what}: ${ring.width}`);
  assert.ok(ring.contrast >= 3, `ring on ${ring.what}: contrast ${ring.contrast}:1`);
}
