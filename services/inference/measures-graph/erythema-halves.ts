/**
 * The skin's redness on one half of a patch's columns (along the eye line: the first half toward the
 * subject's right, the second toward their left), for redness, which reads each cheek's half beside the
 * nose (scoring.ts). Spots and pixels clipped in the photo are left out as on the whole patch
 * (colour-measures.ts); shine, the halo around it and the lightest tenth are judged on the half's own
 * light. Judged against the whole cheek's median, the half nearer the camera, usually the lighter, lost
 * its ordinary skin as "halo" and read its shaded rest (docs/inference.md, "Redness reads the cheeks
 * beside the nose").
 */
import { PATCH_SIZE, THRESHOLDS } from './features.ts';
import { FLOAT, type GraphBuilder } from './graph-builder.ts';
import { addKthLargest, addSkinWeight } from './patch-ops.ts';

/**
 * The columns the lightest tenth is judged on (with every other row): a set that is its own mirror image,
 * the even ones of the left half and the odd ones of the right. Every other column from the first, the
 * sample a mirrored patch gave was the other columns, and a mirrored photo's redness moved by up to 0.04.
 */
export const SAMPLE_COLUMNS = Array.from({ length: PATCH_SIZE / 2 }, (_, i) =>
  i < PATCH_SIZE / 4 ? 2 * i : 2 * i + 1,
);

export interface HalfInputs {
  /** L*, [n, 1, h, w]. */
  readonly l: string;
  /** Each pixel's erythema index, [n, 1, h, w]. */
  readonly erythema: string;
  /** 1 where a pixel is away from spots and not clipped in the photo, [n, 1, h, w]. */
  readonly kept: string;
  /**
   * Each block's largest degree of shine (0..1) above `median` (L*, [n, 1, 1, 1]), [n, 1, h/block, w/block]
   * (addShineBlocks); `name` prefixes its nodes.
   */
  readonly shine: (median: string, name: string) => string;
}

/** The mean erythema index of the half's skin, [n, 1, 1, 1]: `side` 0 the first half, 1 the second. */
export function addHalfErythema(g: GraphBuilder, inputs: HalfInputs, side: 0 | 1, output: string): string {
  const weight = addHalfWeight(g, inputs, side, output, false);
  const total = g.node(
    'Add',
    [g.mean(weight, `${output}_weight_mean`), g.scalar(`${output}_epsilon`, 1e-6)],
    [`${output}_weight_total`],
  );
  return g.node('Div', [addWeighted(g, inputs.erythema, weight, output), total], [output]);
}

/**
 * A side weighs by its share of the patch's skin up to this share of the patch, fully from it: the two
 * sides count alike unless one holds almost no skin (a side in deep shade or all shine), whose few pixels
 * then weigh little rather than half.
 */
export const SIDE_SKIN_SHARE = 0.02;

/**
 * The skin's redness of the middle of the face, read on its skin by what it is, within each half of the
 * columns (`erythema_skin_sides`, [n, 1, 1, 1]). Its brows, eyes, nostrils and hair, darker than half the
 * skin's luminance, are left out by their lightness (addSkinWeight, against the half's skin level: the mean
 * L* of the half's pixels within the skin's bounds of its median), not as spots, whose 9×9 rim covered half
 * of the region; thin dark things, a stubble's hairs, lashes, a brow's edge, are spots (`spots`) and go
 * with the pixels next to them (3×3). Shine's halo is judged on that skin level (against the median, which
 * the brows and eyes lower, the lit skin of the nose's bridge read as halo); red spots (their 9×9 rim),
 * clipping and the lightest tenth are left out as elsewhere. The two halves count alike (SIDE_SKIN_SHARE):
 * under a light from one side, one flank of the nose lit and the other shaded, pooled skin read mostly one
 * of them (docs/inference.md, "Redness's baseline reads the middle of the face's skin").
 */
export function addSidesErythema(
  g: GraphBuilder,
  inputs: Omit<HalfInputs, 'kept'> & {
    readonly redSpots: string;
    readonly spots: string;
    readonly notClipped: string;
  },
  output: string,
): string {
  const near = (mask: string, size: number, name: string) =>
    g.node(
      'Sub',
      [
        g.scalar(`${output}_${name}_one`, 1),
        g.node(
          'MaxPool',
          [g.node('Cast', [mask], [`${output}_${name}_mask`], { to: FLOAT })],
          [`${output}_${name}_near`],
          {
            kernel_shape: [size, size],
            pads: Array(4).fill((size - 1) / 2),
          },
        ),
      ],
      [`${output}_${name}_away`],
    );
  const kept = [near(inputs.spots, 3, 'spot'), inputs.notClipped].reduce(
    (w, x, i) => g.node('Mul', [w, x], [`${output}_kept_${i}`]),
    near(inputs.redSpots, 9, 'red_spot'),
  );
  const cap = g.scalar(`${output}_side_share`, SIDE_SKIN_SHARE);
  const sides = ([0, 1] as const).map((side) => {
    const name = `${output}_${side}`;
    const weight = addHalfWeight(g, { ...inputs, kept }, side, name, true);
    const share = g.mean(weight, `${name}_weight_mean`);
    const mean = g.node(
      'Div',
      [
        addWeighted(g, inputs.erythema, weight, name),
        g.node('Max', [share, g.scalar(`${name}_eps`, 1e-6)], [`${name}_share_floored`]),
      ],
      [`${name}_mean`],
    );
    const weighs = g.node('Min', [share, cap], [`${name}_weighs`]);
    return { weighted: g.node('Mul', [mean, weighs], [`${name}_counted`]), weighs };
  });
  const total = g.node(
    'Max',
    [
      g.node('Add', [sides[0]!.weighs, sides[1]!.weighs], [`${output}_weighs`]),
      g.scalar(`${output}_eps`, 1e-6),
    ],
    [`${output}_total`],
  );
  return g.node(
    'Div',
    [g.node('Add', [sides[0]!.weighted, sides[1]!.weighted], [`${output}_sum`]), total],
    [output],
  );
}

/** The patch mean of `values` × `weight`, [n, 1, 1, 1]. */
function addWeighted(g: GraphBuilder, values: string, weight: string, name: string): string {
  return g.mean(g.node('Mul', [values, weight], [`${name}_weighted`]), `${name}_sum`);
}

/**
 * Each pixel's weight in a half's skin redness, [n, 1, h, w]: in the half, kept, away from shine's halo,
 * not among the half's lightest tenth; with `bySkin`, shine judged on the half's skin level rather than its
 * median, and each pixel weighed by how far it is skin by its lightness against that level (addSidesErythema).
 */
function addHalfWeight(
  g: GraphBuilder,
  inputs: HalfInputs,
  side: 0 | 1,
  output: string,
  bySkin: boolean,
): string {
  const { l, kept, shine } = inputs;
  const halfWidth = PATCH_SIZE / 2;
  const inHalf = (column: number) => Math.floor(column / halfWidth) === side;
  const rows = (from: number, step: number, axis: number, name: string) =>
    g.node(
      'Slice',
      [
        l,
        g.ints(`${name}_starts`, [from]),
        g.ints(`${name}_ends`, [from + (axis === 3 ? halfWidth : PATCH_SIZE)]),
        g.ints(`${name}_axes`, [axis]),
        g.ints(`${name}_steps`, [step]),
      ],
      [name],
    );
  const median = addKthLargest(
    g,
    rows(side * halfWidth, 1, 3, `${output}_l`),
    (PATCH_SIZE * halfWidth) / 2,
    `${output}_median`,
  );
  const mask = g.constant(
    `${output}_columns`,
    [1, 1, PATCH_SIZE, PATCH_SIZE],
    Array.from({ length: PATCH_SIZE * PATCH_SIZE }, (_, i) => (inHalf(i % PATCH_SIZE) ? 1 : 0)),
  );
  const skin = bySkin ? addSkinLevel(g, l, median, mask, output) : undefined;
  const nearShine = addNearShine(g, shine(skin?.level ?? median, `${output}_shine`), `${output}_`);
  const columns = SAMPLE_COLUMNS.filter(inHalf);
  const lightest = addKthLargest(
    g,
    g.node(
      'Gather',
      [rows(0, 2, 2, `${output}_sample_rows`), g.ints(`${output}_sample_columns`, columns)],
      [`${output}_sample`],
      { axis: 3 },
    ),
    Math.ceil((PATCH_SIZE / 2) * columns.length * THRESHOLDS.lightestShare),
    `${output}_lightest`,
  );
  const notLightest = g.node(
    'Cast',
    [g.node('LessOrEqual', [l, lightest], [`${output}_not_lightest_mask`])],
    [`${output}_not_lightest`],
    { to: FLOAT },
  );
  const weights = [
    kept,
    g.node('Sub', [g.scalar(`${output}_one`, 1), nearShine], [`${output}_away`]),
    notLightest,
    ...(skin ? [skin.weight] : []),
  ];
  return weights.reduce((w, x, i) => g.node('Mul', [w, x], [`${output}_weight_${i}`]), mask);
}

/**
 * The half's skin level (L*, [n, 1, 1, 1]): the mean L* of its pixels that are skin by their lightness
 * against its median (addSkinWeight); and `weight`, each pixel's share of skin against that level.
 */
function addSkinLevel(
  g: GraphBuilder,
  l: string,
  median: string,
  mask: string,
  output: string,
): { level: string; weight: string } {
  const first = g.node(
    'Mul',
    [addSkinWeight(g, l, median, `${output}_first_skin`), mask],
    [`${output}_first_skin_half`],
  );
  const level = g.node(
    'Div',
    [
      addWeighted(g, l, first, `${output}_skin_l`),
      g.node(
        'Add',
        [g.mean(first, `${output}_first_skin_mean`), g.scalar(`${output}_skin_eps`, 1e-6)],
        [`${output}_first_skin_total`],
      ),
    ],
    [`${output}_skin_level`],
  );
  return { level, weight: addSkinWeight(g, l, level, `${output}_skin`) };
}

/**
 * The lightest L* of each SHINE_BLOCK×SHINE_BLOCK block, [n, 1, h/block, w/block]. A pixel's shine degree
 * (clip((L* − level − excess)/ramp, 0, 1)) only grows with its L*, in float32 as in exact arithmetic
 * (each step rounds monotonically), so a block's largest degree is the degree of its lightest L*: the
 * degrees near shine reads are computed on the blocks, not on every pixel (the same values).
 */
export function addShineBlocks(g: GraphBuilder, l: string): string {
  const block = THRESHOLDS.shineBlock;
  return g.node('MaxPool', [l], ['l_shine_blocks'], {
    kernel_shape: [block, block],
    strides: [block, block],
  });
}

/**
 * Where shine lies near, [n, 1, h, w]: the largest shine degree over the pixel's own block of
 * SHINE_BLOCK×SHINE_BLOCK pixels and the eight blocks around it (a max over blocks, then back to pixels:
 * cheaper than a max over a window around every pixel), from `blockShine`, each block's largest degree
 * (the degree of addShineBlocks' L*). `prefix` names its nodes.
 */
export function addNearShine(g: GraphBuilder, blockShine: string, prefix = ''): string {
  const block = THRESHOLDS.shineBlock;
  const around = g.node('MaxPool', [blockShine], [`${prefix}shine_blocks_around`], {
    kernel_shape: [3, 3],
    pads: [1, 1, 1, 1],
  });
  return g.node(
    'Resize',
    [around, '', g.constant(`${prefix}shine_block_scales`, [4], [1, 1, block, block])],
    [`${prefix}near_shine`],
  );
}
