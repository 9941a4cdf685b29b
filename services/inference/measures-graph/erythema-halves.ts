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
import { addKthLargest } from './patch-ops.ts';

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
  /** Each pixel's degree of shine (0..1) above `median` (L*, [n, 1, 1, 1]); `name` prefixes its nodes. */
  readonly shine: (median: string, name: string) => string;
}

/** The mean erythema index of the half's skin, [n, 1, 1, 1]: `side` 0 the first half, 1 the second. */
export function addHalfErythema(g: GraphBuilder, inputs: HalfInputs, side: 0 | 1, output: string): string {
  const { l, erythema, kept, shine } = inputs;
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
  const nearShine = addNearShine(g, shine(median, `${output}_shine`), `${output}_`);
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
  const mask = g.constant(
    `${output}_columns`,
    [1, 1, PATCH_SIZE, PATCH_SIZE],
    Array.from({ length: PATCH_SIZE * PATCH_SIZE }, (_, i) => (inHalf(i % PATCH_SIZE) ? 1 : 0)),
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
  ];
  const weight = weights.reduce((w, x, i) => g.node('Mul', [w, x], [`${output}_weight_${i}`]), mask);
  const total = g.node(
    'Add',
    [g.mean(weight, `${output}_weight_mean`), g.scalar(`${output}_epsilon`, 1e-6)],
    [`${output}_weight_total`],
  );
  const sum = g.mean(g.node('Mul', [erythema, weight], [`${output}_weighted`]), `${output}_sum`);
  return g.node('Div', [sum, total], [output]);
}

/**
 * Where shine lies near, [n, 1, h, w]: the largest shine degree over the pixel's own block of
 * SHINE_BLOCK×SHINE_BLOCK pixels and the eight blocks around it (a max over blocks, then back to pixels:
 * cheaper than a max over a window around every pixel). `prefix` names its nodes.
 */
export function addNearShine(g: GraphBuilder, shine: string, prefix = ''): string {
  const block = THRESHOLDS.shineBlock;
  const blocks = g.node('MaxPool', [shine], [`${prefix}shine_blocks`], {
    kernel_shape: [block, block],
    strides: [block, block],
  });
  const around = g.node('MaxPool', [blocks], [`${prefix}shine_blocks_around`], {
    kernel_shape: [3, 3],
    pads: [1, 1, 1, 1],
  });
  return g.node(
    'Resize',
    [around, '', g.constant(`${prefix}shine_block_scales`, [4], [1, 1, block, block])],
    [`${prefix}near_shine`],
  );
}
