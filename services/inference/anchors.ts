/**
 * SSD anchors of MediaPipe's BlazeFace models as this package exports them. Both the front (128×128) and
 * back (256×256) models predict on two grids of 16×16 cells with 2 anchors each, then 8×8 cells with 6
 * anchors each (three anchor layers of 2 sharing the grid): 896 anchors. Anchors are unit-sized and
 * centred on their cell; the regressor gives offsets relative to them in input pixels.
 */
export interface Anchor {
  readonly cx: number;
  readonly cy: number;
}

export function blazeFaceAnchors(): Anchor[] {
  const anchors: Anchor[] = [];
  for (const [cells, perCell] of [
    [16, 2],
    [8, 6],
  ] as const) {
    for (let y = 0; y < cells; y++) {
      for (let x = 0; x < cells; x++) {
        for (let k = 0; k < perCell; k++) anchors.push({ cx: (x + 0.5) / cells, cy: (y + 0.5) / cells });
      }
    }
  }
  return anchors;
}
