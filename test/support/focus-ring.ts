/**
 * The focus ring as a person sees it: drawn (an outline of some width) and, WCAG 1.4.11, at a contrast of at
 * least 3:1 against the background it is drawn on (the nearest ancestor's opaque background: with an offset
 * the ring lies outside the control, on the page).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** The focused element's ring: its description, outline width and contrast against the background behind it. */
export async function focusRing(page: Page): Promise<{ what: string; width: string; contrast: number }> {
  return (await page.evaluate(`(() => {
    // Any CSS colour (rgb(), oklch() as the widget's are) as sRGB bytes and alpha, by painting it.
    const canvas = document.createElement('canvas').getContext('2d', { willReadFrequently: true });
    const rgb = (c) => {
      canvas.clearRect(0, 0, 1, 1);
      canvas.fillStyle = c;
      canvas.fillRect(0, 0, 1, 1);
      return [...canvas.getImageData(0, 0, 1, 1).data];
    };
    const luminance = ([r, g, b]) => {
      const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    // A visually hidden file input shows its ring on its label, the visible button (scan-page.css).
    const focused = document.activeElement;
    const e = focused.type === 'file' && focused.labels?.[0] ? focused.labels[0] : focused;
    const style = getComputedStyle(e);
    let behind = e.parentElement;
    while (behind && (rgb(getComputedStyle(behind).backgroundColor)[3] ?? 1) === 0) behind = behind.parentElement;
    const back = rgb(behind ? getComputedStyle(behind).backgroundColor : 'rgb(255,255,255)');
    const [a, b] = [luminance(rgb(style.outlineColor)), luminance(back)].sort((x, y) => y - x);
    return {
      what: focused.tagName + '#' + focused.id + ' ' + (e.textContent ?? '').trim().slice(0, 30),
      width: style.outlineStyle === 'none' ? '0px' : style.outlineWidth,
      contrast: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100,
    };
  })()`)) as { what: string; width: string; contrast: number };
}

/** The focused element shows a ring at least 2 px wide at a contrast of at least 3:1. */
export async function assertFocusRing(page: Page): Promise<void> {
  const ring = await focusRing(page);
  assert.ok(Number.parseFloat(ring.width) >= 2, `no ring on ${ring.what}: ${ring.width}`);
  assert.ok(ring.contrast >= 3, `ring on ${ring.what}: contrast ${ring.contrast}:1`);
}
