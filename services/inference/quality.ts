/**
 * Quality gates: reasons a photo cannot be measured, each one the person can act on. They run in the order
 * a person would fix them: find a face, the photo upright, the whole face in it, alone, large enough,
 * facing the camera, then lighting and focus.
 */
import { type RgbImage, WORKING_SIZE } from './decode.ts';
import { eyeLight } from './eye-light.ts';
import type { Face, Point } from './face.ts';
import type { Landmarks } from './landmarks.ts';
import {
  faceFrame,
  facePatch,
  meanOf,
  REGIONS,
  type Region,
  regionCorners,
  regionLayout,
} from './regions.ts';
import { readsAtLeast, Scratch, sampleRect } from './sampling.ts';
import { sharpness } from './sharpness.ts';

/** Detections below this are not faces for the gates. */
const FACE_SCORE = 0.6;
/** Another face at least this share of the main face's area makes the photo a group photo. */
const PROMINENT_AREA = 0.3;
/** The face box grown by this share of its size on each side must lie inside the photo. */
const BOX_MARGIN = 0.05;
/**
 * Eyes closer than this (landmark eye centres, working-image pixels) leave too few pixels per region, which
 * are sized in eye distances. Not the detector's box: it shrinks as the head tilts (by up to 18 % at 30°,
 * img14 164 → 136 px), the eye distance does not (3 %). 56 px is the old 140 px box at the reference
 * faces' box-to-eye-distance ratio (2.3–2.8, median 2.45) and refuses the same reference photos.
 */
const MIN_EYE_DISTANCE = 56;
/**
 * A photo with a longer side under this has too few pixels for any face in it: eyes are at most 0.4 of a
 * face's width apart, so even a face filling it would be under MIN_EYE_DISTANCE. With no face found in one
 * (a 32 px thumbnail), its size, not the absence of a face, is what the person can act on.
 */
const MIN_PHOTO_SIDE = Math.ceil(MIN_EYE_DISTANCE / 0.4);
/**
 * The landmarks' eyes, nose tip or mouth farther than this (eye distances) from the detector's keypoints:
 * the two networks do not agree where the face is, which happens when part of it is outside the photo
 * and each lays the missing features out on what is left (0.2–17 on crops of the reference faces that cut
 * the eyes away; one, img6 with the top 40 % of its face gone, passed every other gate and was analysed).
 * Whole upright faces agree within 0.2, and within 0.27 tilted by up to 30° (the reference faces).
 */
const MAX_DISAGREEMENT = 0.4;
/** Nose offset from the eyes' midpoint, in eye distances, past which the face is turned. */
const MAX_YAW = 0.35;
/**
 * Eye-line tilt past which regions no longer sit on the right skin. Below it the measures follow the tilt:
 * regions are laid out in the face's own frame. Turning the reference faces moved a score by more than 5
 * points about as often up to 30° as turning them by 10° and back (no tilt at all) did, and somewhat more
 * often past it; real photos hold faces tilted by 21° and 31.5° (package faces c and d), so the limit
 * stays here. docs/inference.md, "Gates on the face's frame".
 */
const MAX_ROLL_DEGREES = 40;
/**
 * Mean luma of the face crop below which the photo is too dark, unless its eyes show the light (MIN_EYE_LIGHT).
 * The crop's mean is mostly skin, so alone it judged the skin, not the light: a darker skin in the light a
 * lighter one is accepted in read under it (docs/inference.md, "Too dark: the light, not the skin").
 */
const MIN_BRIGHTNESS = 55;
/**
 * The eyes' whites (eyeLight: the 90th percentile of luma inside each eye's outline) at which a face
 * darker than MIN_BRIGHTNESS is still in enough light: the brighter eye at least MIN_EYE_LIGHT, the darker
 * at least MIN_OTHER_EYE (a face lit from one side shades one eye; a reflection in one lens, one eye closed
 * or behind a dark lens does not pass). Set for parity: the median of the brighter eye's value on the
 * reference and package faces darkened in linear light until their mean reads MIN_BRIGHTNESS.
 */
const MIN_EYE_LIGHT = 51;
const MIN_OTHER_EYE = 25;
/**
 * Mean luma of the face crop below which the photo is too dark whatever its eyes show: lenses reflecting a
 * light, or glare, make the eyes read bright in a photo too dark to measure. The darkest skin the probe
 * makes (package face i, its skin ×0.25 in linear light) reads 34, 1.2 stops above.
 */
const MIN_FACE_LIGHT = 20;
const MAX_BRIGHTNESS = 215;
/**
 * Share of the skin's samples (clippedSkin) with a channel at white above which the photo is overexposed.
 * Red clips first on skin, long before luma does, and a clipped channel's true value is unknown: redness
 * and the colour correction then read a biased remainder, texture flat white patches. On the reference
 * faces, variants brightened or warmed past about 0.12–0.15 moved redness by 6–13 points, and the
 * originals whose own skin was 30–83 % clipped read redness 12–27 points off what a darker copy of the
 * same pixels read; 28 % lies between the originals at 25 % (img2) and 30 % (img18): docs/inference.md,
 * Colour constancy.
 */
export const MAX_CLIPPED = 0.28;
/** A sample at or above this in any channel (0–255) is clipped: white, or a mix mostly of white. */
const CLIPPED_LEVEL = 250;
/** The skin the colour measures read (scoring.ts), each region sampled SKIN_GRID×SKIN_GRID and weighed alike. */
const SKIN_REGIONS: readonly Region[] = [
  'forehead',
  'right_cheek',
  'left_cheek',
  'nose',
  'chin',
  'right_under_eye',
  'left_under_eye',
];
const SKIN_GRID = 32;
/**
 * Sharpness of the 128×128 face (sharpness.ts: how wide its edges are in the direction they are widest,
 * whatever their contrast) below which detail is lost. Set for parity: the median (19.6) of its value on
 * the package and reference faces blurred until the variance of the Laplacian, the measure before, read its
 * threshold of 20 (docs/inference.md, "Too blurry: the edges, not the contrast").
 */
export const MIN_SHARPNESS = 20;
/**
 * Mean spread between a face pixel's largest and smallest channel (0–255) below which the photo holds no
 * colour to measure: 0 in black and white, 40–60 on the reference faces, 16 or more under a strong blue cast.
 */
const MIN_COLOURFULNESS = 4;

export type QualityReason =
  | 'no_face'
  | 'several_faces'
  | 'face_cut_off'
  | 'photo_too_small'
  | 'face_too_small'
  | 'face_turned'
  | 'too_dark'
  | 'overexposed'
  | 'too_blurry'
  | 'no_colour';

export interface Quality {
  readonly width: number;
  readonly height: number;
  readonly faces: number;
  readonly faceConfidence: number;
  readonly faceWidthFraction: number;
  readonly yaw: number;
  readonly roll: number;
  readonly brightness: number;
  /** eyeLight's two eyes, the brighter first (0 for a closed eye), when the landmarks were found. */
  readonly eyeLight: readonly [number, number];
  /** Share of the skin's samples with any channel at white (clippedSkin). */
  readonly clippedFraction: number;
  readonly sharpness: number;
  readonly colourfulness: number;
}

/** What the models found: every detection, best first, and the main face's landmarks and orientation. */
export interface Findings {
  readonly detections: readonly Face[];
  /** The landmarks of mainFace(detections), when there is one. */
  readonly landmarks?: Landmarks;
  /** FaceDetector.upsideDown of the main face: above 0 the photo shows it upside down. */
  readonly upsideDown?: number;
}

export interface QualityVerdict {
  readonly face: Face | undefined;
  readonly quality: Quality;
  readonly failure: QualityReason | undefined;
}

/** The face the analysis is about: the best detection confident enough to be a face. */
export function mainFace(detections: readonly Face[]): Face | undefined {
  return detections.find((f) => f.score >= FACE_SCORE);
}

export function judgeQuality(image: RgbImage, findings: Findings): QualityVerdict {
  const { detections, landmarks, upsideDown = 0 } = findings;
  const faces = detections.filter((f) => f.score >= FACE_SCORE);
  const face = faces[0];
  const base = {
    width: image.width,
    height: image.height,
    faces: 0,
    faceConfidence: detections[0]?.score ?? 0,
  };
  const empty = {
    faceWidthFraction: 0,
    yaw: 0,
    roll: 0,
    brightness: 0,
    eyeLight: [0, 0] as const,
    clippedFraction: 0,
    sharpness: 0,
    colourfulness: 0,
  };
  if (!face) {
    const tiny = Math.max(image.width, image.height) < MIN_PHOTO_SIDE;
    return { face, quality: { ...base, ...empty }, failure: tiny ? 'photo_too_small' : 'no_face' };
  }

  const area = (f: Face) => f.box.w * f.box.h;
  const largest = Math.max(...faces.map(area));
  const prominent = faces.filter((f) => area(f) >= PROMINENT_AREA * largest).length;
  const { yaw, roll } = pose(face);
  const light = {
    ...lighting(image, face),
    eyeLight: landmarks ? eyeLight(image, landmarks) : ([0, 0] as const),
    clippedFraction: landmarks ? clippedSkin(image, landmarks) : 0,
  };
  const quality: Quality = {
    ...base,
    faces: prominent,
    faceConfidence: face.score,
    faceWidthFraction: face.box.w / image.width,
    yaw,
    roll,
    ...light,
  };
  // The face's own frame first: inside the photo, then upright. A face cut in half can look upside down
  // or turned, and a weak detection beside it (0.6–0.7, on a hand or a collar) is no reason to ask for a
  // photo alone; an upside-down face's landmarks disagree with its keypoints as a cut one's do.
  const eyes = () => faceFrame(landmarks!).d;
  const upscale = WORKING_SIZE / Math.max(image.width, image.height);
  const gates: [QualityReason, () => boolean][] = [
    ['face_cut_off', () => !landmarks || runsOff(image, face, landmarks)],
    ['face_turned', () => upsideDown > 0 || Math.abs(roll) > MAX_ROLL_DEGREES],
    ['face_cut_off', () => disagreement(face, landmarks!) > MAX_DISAGREEMENT],
    ['several_faces', () => prominent > 1],
    // Too small because the photo has too few pixels (smaller than the working size, a face that would be
    // large enough at it), rather than because the face is small in the frame: send the photo at full size.
    ['photo_too_small', () => eyes() < MIN_EYE_DISTANCE && eyes() * upscale >= MIN_EYE_DISTANCE],
    ['face_too_small', () => eyes() < MIN_EYE_DISTANCE],
    ['face_turned', () => Math.abs(yaw) > MAX_YAW],
    [
      'too_dark',
      () =>
        light.brightness < MIN_FACE_LIGHT || (light.brightness < MIN_BRIGHTNESS && !eyesLit(light.eyeLight)),
    ],
    ['overexposed', () => light.brightness > MAX_BRIGHTNESS || light.clippedFraction > MAX_CLIPPED],
    ['too_blurry', () => light.sharpness < MIN_SHARPNESS],
    ['no_colour', () => light.colourfulness < MIN_COLOURFULNESS],
  ];
  const failure = gates.find(([, failed]) => failed())?.[0];
  return { face, quality, failure };
}

/** Whether the eyes show enough light for a face whose mean luma is below MIN_BRIGHTNESS. */
function eyesLit([brighter, darker]: readonly [number, number]): boolean {
  return brighter >= MIN_EYE_LIGHT && darker >= MIN_OTHER_EYE;
}

/**
 * A face runs off the photo when its box, grown by a margin, or any landmark or skin region does: the
 * regions would be measured on whatever lies at the edge instead of skin. (A face whose eyes are cut away
 * can stay inside all three: see MAX_DISAGREEMENT.)
 */
export function runsOff(image: RgbImage, face: Face, landmarks: Landmarks): boolean {
  // The box is in edge coordinates (0 at the photo's left edge), landmarks and regions in pixel-centre
  // ones (pixel i at i): the photo spans 0..width in the first, −0.5..width − 0.5 in the second, so a
  // mirrored photo is judged alike.
  const inside =
    (offset: number) =>
    ([x, y]: readonly [number, number]) =>
      x >= offset && y >= offset && x <= image.width + offset && y <= image.height + offset;
  const { x, y, w, h } = face.box;
  const mx = BOX_MARGIN * w;
  const my = BOX_MARGIN * h;
  if (!inside(0)([x - mx, y - my]) || !inside(0)([x + w + mx, y + h + my])) return true;
  const insideCentres = inside(-0.5);
  if (!landmarks.every(insideCentres)) return true;
  const frame = faceFrame(landmarks);
  const layout = regionLayout(landmarks);
  return !REGIONS.every((region) => regionCorners(layout[region], frame).every(insideCentres));
}

/**
 * The largest distance, in the detector's eye distances, between the landmarks' eye centres, nose tip and
 * mouth and the detector's keypoints for them. The keypoints are in edge coordinates, the landmarks in
 * pixel-centre ones: half a pixel apart, which is nothing at this scale.
 */
export function disagreement(face: Face, landmarks: Landmarks): number {
  const [right, left, nose, mouth] = face.keypoints;
  const d = Math.hypot(left[0] - right[0], left[1] - right[1]) || 1;
  const pairs: [Point, Point][] = [
    [meanOf(landmarks, [36, 37, 38, 39, 40, 41]), right],
    [meanOf(landmarks, [42, 43, 44, 45, 46, 47]), left],
    [landmarks[30]!, nose],
    [meanOf(landmarks, [48, 51, 54, 57]), mouth],
  ];
  return Math.max(...pairs.map(([a, b]) => Math.hypot(a[0] - b[0], a[1] - b[1]) / d));
}

/** Yaw: the nose's offset from the eyes' midpoint along the eye line, in eye distances; roll in degrees. */
export function pose(face: Face): { yaw: number; roll: number } {
  const [right, left, nose] = face.keypoints;
  const dx = left[0] - right[0];
  const dy = left[1] - right[1];
  const d = Math.hypot(dx, dy) || 1;
  const along = ((nose[0] - (right[0] + left[0]) / 2) * dx + (nose[1] - (right[1] + left[1]) / 2) * dy) / d;
  return { yaw: along / d, roll: (Math.atan2(dy, dx) * 180) / Math.PI };
}

/** clippedSkin's samples (it runs without awaiting: see Scratch). */
const SKIN_SAMPLES = new Scratch();

/**
 * Share of the skin regions' samples (SKIN_REGIONS, each SKIN_GRID×SKIN_GRID) with any channel at or above
 * CLIPPED_LEVEL. Per channel, not luma: under a warm light or half a stop more, red reaches 255 on most of
 * a face whose luma is still below 250 (img44 at +0.5 EV: red on 54 % of the face's centre, green on 12 %).
 */
export function clippedSkin(image: RgbImage, landmarks: Landmarks): number {
  const { u, v, d } = faceFrame(landmarks);
  const layout = regionLayout(landmarks);
  const out = SKIN_SAMPLES.take(SKIN_GRID * SKIN_GRID * 3);
  let clipped = 0;
  for (const region of SKIN_REGIONS) {
    const { centre, w, h } = layout[region];
    // No pixel at white under the region: none of its samples is, and the sampling is skipped.
    if (!readsAtLeast(image, centre, u, v, w * d, h * d, CLIPPED_LEVEL)) continue;
    sampleRect(image, centre, u, v, w * d, h * d, SKIN_GRID, SKIN_GRID, undefined, out);
    clipped += countClipped(out);
  }
  return clipped / (SKIN_REGIONS.length * SKIN_GRID * SKIN_GRID);
}

/** How many RGB samples (0–255, pixel by pixel) have a channel at or above CLIPPED_LEVEL. */
function countClipped(rgb: Float32Array): number {
  let count = 0;
  for (let i = 0; i < rgb.length; i += 3) {
    if (rgb[i]! >= CLIPPED_LEVEL || rgb[i + 1]! >= CLIPPED_LEVEL || rgb[i + 2]! >= CLIPPED_LEVEL) count++;
  }
  return count;
}

/** lighting's luma plane (it runs without awaiting: see Scratch). */
const LUMA = new Scratch();

/**
 * Brightness and sharpness of the face itself (a 128×128 crop of its box), in luma, and how much colour it
 * holds.
 */
function lighting(image: RgbImage, face: Face) {
  const size = 128;
  const rgb = facePatch(image, face, size);
  const luma = LUMA.take(size * size);
  const sums = SUMS.fill(0);
  for (let y = 0; y < size; y++) lumaRow(rgb, luma, y * size, (y + 1) * size, sums);
  const [sum, spread] = sums;
  return {
    brightness: sum! / luma.length,
    sharpness: sharpness(luma, size),
    colourfulness: spread! / luma.length,
  };
}

/**
 * lighting's running sums, carried from row to row. The per-row loops are functions of their own, called
 * for every row, so that V8 compiles them whole: in lighting (called once a photo) the loops ran as
 * on-stack-replaced code, thrown away (deoptimised) on leaving them, a few times in every ten photos.
 */
const SUMS = new Float64Array(2);

/** Into `luma`, the luma of pixels start..end; adds to `sums` their luma and the channels' spread. */
function lumaRow(
  rgb: Float32Array,
  luma: Float32Array,
  start: number,
  end: number,
  sums: Float64Array,
): void {
  let sum = sums[0]!;
  let spread = sums[1]!;
  for (let i = start; i < end; i++) {
    const r = rgb[i * 3]!;
    const g = rgb[i * 3 + 1]!;
    const b = rgb[i * 3 + 2]!;
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    luma[i] = y;
    sum += y;
    spread += Math.max(r, g, b) - Math.min(r, g, b);
  }
  sums[0] = sum;
  sums[1] = spread;
}
