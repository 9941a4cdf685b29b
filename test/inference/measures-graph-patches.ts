/**
 * Synthetic 64×64 patches for the skin-measures tests, each built so that one feature has a known,
 * countable answer. Planes R, G, B, row-major, as the model takes them.
 */
import type { Patch } from './measures-graph-reference.ts';

export const SIZE = 64;
export const AREA = SIZE * SIZE;

export type Rgb = readonly [number, number, number];

/** A light-medium skin tone. */
export const SKIN: Rgb = [0.8, 0.62, 0.52];
/** A blemish: much redder (a* ≈ 50) than SKIN. */
export const BLEMISH: Rgb = [0.85, 0.35, 0.35];
/** A dark spot, about 30 L* units darker than SKIN, no redder. */
export const MOLE: Rgb = [0.45, 0.33, 0.28];
/** SKIN in shadow, about 8 L* units darker. */
export const SHADED_SKIN: Rgb = [0.7, 0.54, 0.45];
/** Light reflected off the skin surface: nearly white, nearly neutral. */
export const SHINE: Rgb = [0.97, 0.96, 0.95];
/** A paler sheen: 1.7 times SKIN's linear luminance, the light's colour mixed into the skin's. */
export const SHEEN: Rgb = [0.9, 0.82, 0.78];

/** Top-left corners of 2×2 dots, at least 9 pixels apart and away from the border. */
export const DOT_CORNERS: readonly (readonly [number, number])[] = [
  [10, 10],
  [30, 12],
  [50, 20],
  [15, 40],
  [40, 50],
];

/** A patch whose pixel (x, y) has the colour `colourAt(x, y)`. */
export function paint(colourAt: (x: number, y: number) => Rgb): Patch {
  const patch = new Float32Array(3 * AREA);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const rgb = colourAt(x, y);
      for (let c = 0; c < 3; c++) patch[c * AREA + y * SIZE + x] = rgb[c]!;
    }
  }
  return patch;
}

export function uniform(rgb: Rgb): Patch {
  return paint(() => rgb);
}

/** SKIN with 2×2 dots of `dot` at `corners`. */
export function dotted(dot: Rgb, corners: readonly (readonly [number, number])[]): Patch {
  const inDot = (x: number, y: number) =>
    corners.some(([u, v]) => x - u >= 0 && x - u < 2 && y - v >= 0 && y - v < 2);
  return paint((x, y) => (inDot(x, y) ? dot : SKIN));
}

/** `patch` with its top three rows MOLE: the lower lid and lashes, where a cheek's patch reaches them. */
export function lashesAlongTheTop(patch: Patch): Patch {
  const out = patch.slice();
  for (let c = 0; c < 3; c++) out.fill(MOLE[c]!, c * AREA, c * AREA + 3 * SIZE);
  return out;
}

/** Bands 4 pixels wide of SKIN and SHADED_SKIN, running left to right ('horizontal') or top to bottom. */
export function stripes(direction: 'horizontal' | 'vertical'): Patch {
  return paint((x, y) =>
    Math.floor((direction === 'horizontal' ? y : x) / 4) % 2 === 0 ? SKIN : SHADED_SKIN,
  );
}

/** SKIN with a disc of SHINE of the given radius at the centre. */
export function highlighted(radius: number): Patch {
  return paint((x, y) => ((x - 32) ** 2 + (y - 32) ** 2 <= radius ** 2 ? SHINE : SKIN));
}

/**
 * SKIN lit from one side, steeply — in linear light from 0.1 of its colour at the left edge to all of it at
 * the right (L* about 28 to 73), as the side of a nose turned from the light — with, when `withHighlight`,
 * the disc of `highlighted(5)` on it.
 */
export function rampOfLight(withHighlight: boolean): Patch {
  const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  return paint((x, y) =>
    withHighlight && (x - 32) ** 2 + (y - 32) ** 2 <= 25
      ? SHINE
      : (SKIN.map((c) => toSrgb((0.1 + (0.9 * x) / 63) * toLinear(c))) as unknown as Rgb),
  );
}

/** Pixels inside the disc `highlighted(radius)` paints. */
export function discArea(radius: number): number {
  let count = 0;
  for (let y = 0; y < SIZE; y++)
    for (let x = 0; x < SIZE; x++) if ((x - 32) ** 2 + (y - 32) ** 2 <= radius ** 2) count++;
  return count;
}

/**
 * SKIN lit from one side — in linear light 0.6 to 1 of its colour, falling off smoothly (a cheek's curve)
 * — with, when `withPatch`, a disc of radius 10 at (22, 26) that is about 8 L* darker in the same light
 * (SHADED_SKIN): a tone patch on shaded skin.
 */
export function litFromTheSide(withPatch: boolean): Patch {
  const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  return paint((x, y) => {
    const light = 1 - (0.4 * ((x / 63) ** 2 + 0.5 * (y / 63) ** 2)) / 1.5;
    const inPatch = withPatch && (x - 22) ** 2 + (y - 26) ** 2 <= 100;
    return (inPatch ? SHADED_SKIN : SKIN).map((c) => toSrgb(light * toLinear(c))) as unknown as Rgb;
  });
}

/**
 * SKIN under a shadow's soft edge: the light falls from 1 to 0.7 across the patch along an S curve
 * (3t² − 2t³), as at the edge of a shadow cast across a cheek or the rise of a cheek raised by a smile.
 */
export function shadowEdge(): Patch {
  const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  return paint((x) => {
    const t = x / 63;
    const light = 1 - 0.3 * (3 * t * t - 2 * t * t * t);
    return SKIN.map((c) => toSrgb(light * toLinear(c))) as unknown as Rgb;
  });
}

/**
 * SKIN with a disc of the given radius at the centre `times` its linear light: a patch a little lighter than
 * the skin (about 1.4: a pale tone patch) or a highlight on it (2.2 and more: shine).
 */
export function lighterDisc(times: number, radius: number): Patch {
  const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  return paint((x, y) =>
    (x - 32) ** 2 + (y - 32) ** 2 <= radius ** 2
      ? (SKIN.map((c) => toSrgb(times * toLinear(c))) as unknown as Rgb)
      : SKIN,
  );
}

/** SKIN with independent uniform noise of ±`amplitude` on every channel, reproducible from `seed`. */
export function noisy(amplitude: number, seed: number): Patch {
  const random = mulberry32(seed);
  const clamp = (v: number) => Math.min(1, Math.max(0, v));
  return paint(() => [
    clamp(SKIN[0] + amplitude * (2 * random() - 1)),
    clamp(SKIN[1] + amplitude * (2 * random() - 1)),
    clamp(SKIN[2] + amplitude * (2 * random() - 1)),
  ]);
}

/** A tiny seeded PRNG (mulberry32), so the noise patch is the same on every run. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Dark brown hair, much less red (erythema index about 5) than SKIN (about 25). */
export const HAIR: Rgb = [0.24, 0.22, 0.2];
/** The whites of the eyes: lighter than SKIN, nearly neutral. */
export const SCLERA: Rgb = [0.86, 0.84, 0.83];

/**
 * The middle of the face as the `face` region samples it: SKIN lit more along the nose's bridge (its linear
 * light from 0.7 at the sides to 1.3 at the middle columns, one hue: one erythema index), brows of HAIR along
 * its top edge (the region starts at them) 12 rows tall, eyes (SCLERA around a HAIR iris) and the nostrils
 * (HAIR): a third of the patch.
 */
export function middleOfFace(): Patch {
  const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  const inEllipse = (x: number, y: number, cx: number, cy: number, rx: number, ry: number) =>
    ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
  return paint((x, y) => {
    const brow = y < 12 && (x < 27 || x >= 37);
    const eye = (cx: number) => inEllipse(x, y, cx, 26, 10, 4.5);
    const iris = (cx: number) => inEllipse(x, y, cx, 26, 3.5, 3.5);
    if (brow || iris(15) || iris(48)) return HAIR;
    if (eye(15) || eye(48)) return SCLERA;
    if (inEllipse(x, y, 22, 56, 6, 3.5) || inEllipse(x, y, 41, 56, 6, 3.5)) return HAIR;
    const lit = 1.3 - (0.6 * Math.abs(x - 31.5)) / 31.5;
    return SKIN.map((c) => toSrgb(lit * toLinear(c))) as unknown as Rgb;
  });
}
