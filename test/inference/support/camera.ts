/**
 * What a camera's settings do to a photo, simulated: a white balance set for another colour temperature
 * (each linear-light channel scaled by the ratio of the two blackbody whites, normalised on green), and an
 * exposure change in EV (every linear channel × 2^EV). Both are applied in linear light, then re-encoded
 * as sRGB JPEG, as a camera would.
 */
import sharp from 'sharp';

const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

/** Linear sRGB of a blackbody's white at `kelvin` (Kim et al.'s Planckian locus fit, then XYZ → sRGB). */
export function blackbodyWhite(kelvin: number): [number, number, number] {
  const t = kelvin;
  const x =
    t <= 4000
      ? -0.2661239e9 / t ** 3 - 0.234358e6 / t ** 2 + 0.8776956e3 / t + 0.17991
      : -3.0258469e9 / t ** 3 + 2.1070379e6 / t ** 2 + 0.2226347e3 / t + 0.24039;
  const y =
    t <= 2222
      ? -1.1063814 * x ** 3 - 1.3481102 * x ** 2 + 2.18555832 * x - 0.20219683
      : t <= 4000
        ? -0.9549476 * x ** 3 - 1.37418593 * x ** 2 + 2.09137015 * x - 0.16748867
        : 3.081758 * x ** 3 - 5.8733867 * x ** 2 + 3.75112997 * x - 0.37001483;
  const X = x / y;
  const Z = (1 - x - y) / y;
  return [
    3.2404542 * X - 1.5371385 - 0.4985314 * Z,
    -0.969266 * X + 1.8760108 + 0.041556 * Z,
    0.0556434 * X - 0.2040259 + 1.0572252 * Z,
  ];
}

/**
 * The photo as if lit by light of `kelvin` instead of 6500 K (lower is warmer), and exposed `ev` stops
 * more: each linear channel × white(kelvin)/white(6500), green kept, × 2^ev.
 */
export async function recast(photo: Buffer, kelvin: number, ev = 0): Promise<Buffer> {
  const to = blackbodyWhite(kelvin);
  const from = blackbodyWhite(6500);
  const gains = [0, 1, 2].map((c) => (to[c]! / to[1]! / (from[c]! / from[1]!)) * 2 ** ev);
  const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const lut = gains.map((gain) =>
    Uint8Array.from({ length: 256 }, (_, v) =>
      Math.round(255 * toSrgb(Math.min(1, toLinear(v / 255) * gain))),
    ),
  );
  for (let i = 0; i < data.length; i++) data[i] = lut[i % 3]![data[i]!]!;
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
}
