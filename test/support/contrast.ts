/**
 * Colour contrast as a person sees it, measured in the page (WCAG 2's relative luminance and ratio): any CSS
 * colour (rgb(), oklch() as the bot check widget's are, light-dark() resolved) as sRGB bytes, by painting it.
 * `CONTRAST_JS` is the browser-side part: it defines `rgb(colour)`, `contrast(a, b)` (rounded to 0.01) and
 * `backgroundBehind(element)` (the nearest ancestor's opaque background: what lies around the element).
 */
import type { Page } from 'playwright-core';

export const CONTRAST_JS = `
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
  const contrast = (x, y) => {
    const [a, b] = [luminance(rgb(x)), luminance(rgb(y))].sort((p, q) => q - p);
    return Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100;
  };
  const backgroundBehind = (e) => {
    let behind = e.parentElement;
    while (behind && (rgb(getComputedStyle(behind).backgroundColor)[3] ?? 1) === 0) behind = behind.parentElement;
    return behind ? getComputedStyle(behind).backgroundColor : 'rgb(255,255,255)';
  };
`;

/**
 * The border of the element `selector` names against what it separates: its own background (when opaque)
 * and the background around it; the lower of the two is what WCAG 1.4.11 asks to be 3:1 at least.
 */
export async function borderContrast(
  page: Page,
  selector: string,
): Promise<{ border: string; inside: number; outside: number }> {
  return (await page.evaluate(`(() => {
    ${CONTRAST_JS}
    const e = document.querySelector(${JSON.stringify(selector)});
    const style = getComputedStyle(e);
    const own = (rgb(style.backgroundColor)[3] ?? 1) === 0 ? backgroundBehind(e) : style.backgroundColor;
    return {
      border: style.borderTopWidth + ' ' + style.borderTopStyle + ' ' + style.borderTopColor,
      inside: contrast(style.borderTopColor, own),
      outside: contrast(style.borderTopColor, backgroundBehind(e)),
    };
  })()`)) as { border: string; inside: number; outside: number };
}
