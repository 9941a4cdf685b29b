/**
 * Skin regions laid out from the 68 facial landmarks, and their pixels as fixed-size patches for the
 * measures graph. Each region is a rectangle in the face's own frame — the line between the eye centres
 * and its perpendicular — anchored on the landmarks of the features around it (the forehead above the
 * brows, the cheeks between eye, nose, mouth corner and jaw, …) and sized in eye distances, so it sits on
 * the same skin whatever the face's size, position or tilt. A mirrored photo swaps the two sides, which
 * the scoring averages, so mirroring changes no score.
 */
import type { RgbImage } from './decode.ts';
import type { Face, Point } from './face.ts';
import type { Landmarks } from './landmarks.ts';
import { closeGrid, enlarge, halve, Scratch, sampleRect } from './sampling.ts';

export const PATCH = 64;
/**
 * Regions are first sampled at this many samples per eye distance, then enlarged to the patch size, so
 * texture is measured at the same scale relative to the face whatever the photo's resolution (a face too
 * small to give this many pixels fails the face_too_small gate first).
 */
export const SAMPLES_PER_EYE_DISTANCE = 64;

export const REGIONS = [
  'forehead',
  'right_cheek',
  'left_cheek',
  'nose',
  'chin',
  'right_under_eye',
  'left_under_eye',
  'right_crows_feet',
  'left_crows_feet',
  'face',
  'right_cheek_relief',
  'left_cheek_relief',
  'right_eye',
  'left_eye',
] as const;
export type Region = (typeof REGIONS)[number];

/**
 * The cheeks again, for texture: sampled at twice the density, closed there with a 3×3 square, which fills
 * in dark details up to about 1.5 mm wide — pores are at most about 0.3 mm — and only then averaged 2×2
 * to the usual density. Averaged first, a field of pores is a speckle whose clusters read as relief;
 * filled in first, they leave the skin between them, and bumps, hollows and tone patches, several
 * millimetres wide, as they were. Sized in eye distances, not pixels: a resized photo reads the same.
 */
const RELIEF: ReadonlySet<Region> = new Set(['right_cheek_relief', 'left_cheek_relief']);

/** A region: its centre in the image and its size across (along u) and down (along v), in eye distances. */
export interface RegionRect {
  readonly centre: Point;
  readonly w: number;
  readonly h: number;
}

export interface FaceFrame {
  /** Unit vector along the eye line, from the subject's right eye to the left. */
  readonly u: Point;
  /** Unit vector perpendicular to it, pointing down the face. */
  readonly v: Point;
  /** Distance between the eye centres, in pixels. */
  readonly d: number;
}

export function faceFrame(points: Landmarks): FaceFrame {
  const right = meanOf(points, [36, 37, 38, 39, 40, 41]);
  const left = meanOf(points, [42, 43, 44, 45, 46, 47]);
  const dx = left[0] - right[0];
  const dy = left[1] - right[1];
  const d = Math.hypot(dx, dy) || 1;
  return { u: [dx / d, dy / d], v: [-dy / d, dx / d], d };
}

/** Every region's rectangle. */
export function regionLayout(points: Landmarks): Record<Region, RegionRect> {
  const { u, v, d } = faceFrame(points);
  const p = (i: number) => points[i]!;
  /** `at` moved by `du` eye distances along the eye line and `dv` down the face. */
  const shift = (at: Point, du: number, dv: number): Point => [
    at[0] + (du * u[0] + dv * v[0]) * d,
    at[1] + (du * u[1] + dv * v[1]) * d,
  ];
  const down = (at: Point) => at[0] * v[0] + at[1] * v[1];
  /**
   * Between the lower lid, the side of the nose, the mouth corner and the jaw — but always below the
   * region under the eye (whose lower edge is 0.25 eye distances under the lid), so the two never overlap.
   */
  const cheek = (lid: number[], noseSide: number, mouthCorner: number, jaw: number) => {
    const centre = meanOf(points, [...lid, noseSide, mouthCorner, jaw]);
    const lowest = down(meanOf(points, lid)) + 0.45 * d;
    return shift(centre, 0, Math.max(0, lowest - down(centre)) / d);
  };
  const brows = meanOf(points, range(17, 26));
  const chinHeight = Math.min(0.28, (0.55 * distance(p(57), p(8))) / d);
  const rightCheek = { centre: cheek([40, 41], 31, 48, 2), w: 0.42, h: 0.36 };
  const leftCheek = { centre: cheek([46, 47], 35, 54, 14), w: 0.42, h: 0.36 };
  return {
    forehead: { centre: shift(brows, 0, -0.34), w: 1.1, h: 0.34 },
    right_cheek: rightCheek,
    left_cheek: leftCheek,
    nose: { centre: meanOf(points, [29, 30]), w: 0.24, h: 0.24 },
    chin: { centre: meanOf(points, [57, 8]), w: 0.45, h: chinHeight },
    // 0.15–0.25 eye distances under the lid: clear of the cheeks, whose paint (a redness edit's soft edge)
    // reached the region's lower rows when it went down to 0.27 and moved dark circles by 5 points.
    right_under_eye: { centre: shift(meanOf(points, [40, 41]), 0, 0.2), w: 0.34, h: 0.1 },
    left_under_eye: { centre: shift(meanOf(points, [46, 47]), 0, 0.2), w: 0.34, h: 0.1 },
    right_crows_feet: { centre: shift(p(36), -0.17, 0.02), w: 0.2, h: 0.24 },
    left_crows_feet: { centre: shift(p(45), 0.17, 0.02), w: 0.2, h: 0.24 },
    // The middle of the face, from the brows to the nose's base and 0.4 of the face's width (brows, the eyes'
    // inner corners, nose): its skin's contrast (dullness), and with forehead and nose the skin redness is
    // judged against (scoring.ts REDNESS_BASELINE). Not down to the chin, where a beard or a moustache
    // read as contrast (up to 42 points), nor across the cheeks, whose relief then weighs more (texture edit
    // → dullness 7; 6 at half the face's width once dullness reads the skin only, skin-measures-29.0.0):
    // docs/inference.md, "Beards" and "Skin tone alone".
    face: {
      centre: meanOf([brows, p(33)], [0, 1]),
      w: (0.4 * distance(p(0), p(16))) / d,
      h: distance(brows, p(33)) / d,
    },
    right_cheek_relief: rightCheek,
    left_cheek_relief: leftCheek,
    // For the eye's contrast (texture, scoring.ts): from 0.25 eye distances above the lower lid (the upper
    // lid's skin) to 0.04 below it (the eye, its lashes and pupil); features.ts EYE_* say which rows are which.
    right_eye: { centre: shift(meanOf(points, [40, 41]), 0, -0.105), w: 0.34, h: 0.29 },
    left_eye: { centre: shift(meanOf(points, [46, 47]), 0, -0.105), w: 0.34, h: 0.29 },
  };
}

/** The four corners of a region's rectangle, in image pixels. */
export function regionCorners(rect: RegionRect, frame: FaceFrame): Point[] {
  const { u, v, d } = frame;
  return [
    [-1, -1],
    [1, -1],
    [1, 1],
    [-1, 1],
  ].map(([a, b]) => [
    rect.centre[0] + ((a! * rect.w) / 2) * d * u[0] + ((b! * rect.h) / 2) * d * v[0],
    rect.centre[1] + ((a! * rect.w) / 2) * d * u[1] + ((b! * rect.h) / 2) * d * v[1],
  ]);
}

// regionPatches' and facePatch's working buffers (both run without awaiting: see Scratch).
const SAMPLES = new Scratch();
const HALVED = new Scratch();
/** A patch's layout in the batch: three planes, 0..1. */
const PLANES = { channelStep: PATCH * PATCH, pixelStep: 1, divisor: 255 } as const;
const FACE = new Scratch();

/** Values in the batch of every region's patch. */
export const PATCHES_LENGTH = REGIONS.length * 3 * PATCH * PATCH;

/** All regions as one batch, into `out`: float32 [REGIONS.length, 3, 64, 64], sRGB 0..1, channel-major. */
export function regionPatches(
  image: RgbImage,
  points: Landmarks,
  out: Float32Array = new Float32Array(PATCHES_LENGTH),
): Float32Array {
  const frame = faceFrame(points);
  const layout = regionLayout(points);
  REGIONS.forEach((name, r) => {
    const { centre, w, h } = layout[name];
    // The whole face is larger than a patch at the sampling density: it is shrunk, each pixel the mean of
    // 2×2 samples of its footprint (its light and shade is what is read, not detail that could alias).
    const face = name === 'face';
    const across = face ? PATCH : Math.max(2, Math.round(w * SAMPLES_PER_EYE_DISTANCE));
    const down = face ? PATCH : Math.max(2, Math.round(h * SAMPLES_PER_EYE_DISTANCE));
    const { u, v, d } = frame;
    const sample = (cols: number, rows: number, most?: number) =>
      sampleRect(image, centre, u, v, w * d, h * d, cols, rows, most, SAMPLES.take(cols * rows * 3));
    const halved = HALVED.take(across * down * 3);
    const coarse = RELIEF.has(name)
      ? halve(closeGrid(sample(2 * across, 2 * down), 2 * across), across, down, halved)
      : sample(across, down, face ? 2 : undefined);
    const values = 3 * PATCH * PATCH;
    const patch = out.subarray(r * values, (r + 1) * values);
    // Enlarged straight into the patch's planes, as toPlanes would lay them out.
    if (face) toPlanes(coarse, patch);
    else enlarge(coarse, across, down, PATCH, patch, PLANES);
  });
  return out;
}

/**
 * An RGB patch (0..255, pixel by pixel) as three planes (0..1), into `out`. A function of its own so that
 * V8 compiles the loop whole (nested in the per-region callback it ran as on-stack-replaced code).
 */
function toPlanes(rgb: Float32Array, out: Float32Array): void {
  const plane = PATCH * PATCH;
  for (let i = 0; i < plane; i++) {
    // × (1 / 255): the same float32 as ÷ 255 for a float32 (EnlargedLayout's divisor), and cheaper.
    for (let c = 0; c < 3; c++) out[c * plane + i] = rgb[i * 3 + c]! * (1 / 255);
  }
}

/**
 * The inner part of the face box (skin rather than hair and background), upright, size×size RGB, in a
 * working buffer that the next call overwrites.
 */
export function facePatch(image: RgbImage, face: Face, size: number): Float32Array {
  const [right, left] = face.keypoints;
  const d = Math.hypot(left[0] - right[0], left[1] - right[1]) || 1;
  const u: Point = [(left[0] - right[0]) / d, (left[1] - right[1]) / d];
  // The box's edge coordinates to the pixel-centre ones sampleRect reads (as the landmarks' crop does).
  const centre: Point = [face.box.x + face.box.w / 2 - 0.5, face.box.y + face.box.h / 2 - 0.5];
  const { w, h } = face.box;
  return sampleRect(
    image,
    centre,
    u,
    [-u[1], u[0]],
    w * 0.7,
    h * 0.7,
    size,
    size,
    6,
    FACE.take(size * size * 3),
  );
}

export function meanOf(points: Landmarks, indices: readonly number[]): Point {
  let x = 0;
  let y = 0;
  for (const i of indices) {
    x += points[i]![0];
    y += points[i]![1];
  }
  return [x / indices.length, y / indices.length];
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function distance(a: Point, b: Point): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}
