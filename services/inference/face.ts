/** Face detections and their merging by weighted non-maximum suppression (MediaPipe's blending). */

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export type Point = readonly [number, number];

export interface Face {
  readonly box: Box;
  readonly score: number;
  /** Right eye, left eye, nose tip, mouth, right ear tragion, left ear tragion (the subject's sides). */
  readonly keypoints: readonly [Point, Point, Point, Point, Point, Point];
}

const OVERLAP = 0.3;
/** A face mostly inside a better one is the same face seen at another scale. */
const CONTAINED = 0.6;

export function iou(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.w * a.h + b.w * b.h - inter);
}

function containedIn(inner: Box, outer: Box): boolean {
  const w = Math.min(inner.x + inner.w, outer.x + outer.w) - Math.max(inner.x, outer.x);
  const h = Math.min(inner.y + inner.h, outer.y + outer.h) - Math.max(inner.y, outer.y);
  return w > 0 && h > 0 && (w * h) / (inner.w * inner.h) > CONTAINED;
}

/**
 * Each group of overlapping detections becomes one face whose box and keypoints are the score-weighted
 * mean of the group's, with the group's best score; a weaker face lying mostly inside or around a better
 * one is dropped. Sorted by score, best first.
 */
export function mergeDetections(detections: readonly Face[]): Face[] {
  const remaining = [...detections].sort((a, b) => b.score - a.score);
  const merged: Face[] = [];
  while (remaining.length > 0) {
    const best = remaining[0]!;
    const group = remaining.filter(
      (face) =>
        iou(face.box, best.box) > OVERLAP ||
        containedIn(face.box, best.box) ||
        containedIn(best.box, face.box),
    );
    for (const face of group) remaining.splice(remaining.indexOf(face), 1);
    const total = group.reduce((sum, face) => sum + face.score, 0);
    const mean = (pick: (face: Face) => number) => group.reduce((s, f) => s + pick(f) * f.score, 0) / total;
    merged.push({
      box: {
        x: mean((f) => f.box.x),
        y: mean((f) => f.box.y),
        w: mean((f) => f.box.w),
        h: mean((f) => f.box.h),
      },
      score: best.score,
      keypoints: best.keypoints.map((_, k) => [
        mean((f) => f.keypoints[k]![0]),
        mean((f) => f.keypoints[k]![1]),
      ]) as unknown as Face['keypoints'],
    });
  }
  return merged;
}
