/**
 * Luminance contrast of a patch's skin, for dullness (the middle of the face: brows to the nose's base).
 * Every feature is [n, 1, 1, 1].
 */
import { PATCH_SIZE } from './features.ts';
import type { GraphBuilder } from './graph-builder.ts';
import { addColumns, addKthLargest, addRows, addSkinWeight, addWeightedVariance } from './patch-ops.ts';
import type { TextureFeatures } from './texture-measures.ts';

/**
 * The patch's rows `l_contrast_sides` reads (and `l_contrast_median` the lightness of): the upper 46 of 64,
 * from the brows to above the ball of the nose. The ball, round and jutting, carries the light's
 * highlight on top and its shade under it and beside the nostrils, as much as the photo's light makes of
 * them; left in, it spread one person's photos more than it told people apart (docs/inference.md,
 * "Dullness: the ball of the nose is light").
 */
export const CONTRAST_ROWS = 46;

/**
 * Luminance contrast of the skin of the 3×3-blurred L* (`blurred`, of `l`): its standard deviation over
 * the patch (`l_contrast`), and within each half of its columns over its upper CONTRAST_ROWS, pooled
 * (`l_contrast_sides`: each half's variance about its own mean, weighted by the skin it holds), with the
 * median L* of those rows (`l_contrast_median`), which dullness reads the contrast relative to. A light
 * from one side lights one half of the middle of the face — one flank of the nose, one eye's socket — and
 * shades the other; the step between the halves is the light's, the contrast within each is the face's own
 * (docs/inference.md, "Dullness: one side lit").
 */
export function addContrast(
  g: GraphBuilder,
  l: string,
  blurred: string,
): Pick<TextureFeatures, 'l_contrast' | 'l_contrast_sides' | 'l_contrast_median'> {
  const skin = addSkinWeight(g, blurred, 'l_median', 'l_contrast_skin');
  const width = PATCH_SIZE - 2;
  const upper = (x: string, out: string) => addRows(g, x, 0, CONTRAST_ROWS - 2, out);
  const add = (x: string, y: string, name: string) => g.node('Add', [x, y], [name]);
  const [first, second] = [0, 1].map((side) => {
    const columns = (x: string, out: string) =>
      addColumns(g, upper(x, `${out}_upper`), side * (width / 2), (side + 1) * (width / 2), out);
    const sideSkin = columns(skin, `l_side_${side}_skin`);
    const sideL = columns(blurred, `l_side_${side}`);
    const weight = g.mean(sideSkin, `l_side_${side}_skin_mean`);
    const variance = addWeightedVariance(g, sideL, sideSkin, `l_side_${side}_variance`);
    return { weight, weighted: g.node('Mul', [weight, variance], [`l_side_${side}_weighted_variance`]) };
  });
  const total = add(
    add(first!.weight, second!.weight, 'l_sides_skin'),
    g.scalar('l_sides_eps', 1e-6),
    'l_sides_total',
  );
  const pooled = g.node(
    'Div',
    [add(first!.weighted, second!.weighted, 'l_sides_sum'), total],
    ['l_sides_variance'],
  );
  return {
    l_contrast: g.node('Sqrt', [addWeightedVariance(g, blurred, skin, 'l_blurred_variance')], ['l_contrast']),
    l_contrast_sides: g.node('Sqrt', [pooled], ['l_contrast_sides']),
    l_contrast_median: addKthLargest(
      g,
      addRows(g, l, 0, CONTRAST_ROWS, 'l_contrast_rows'),
      (CONTRAST_ROWS * PATCH_SIZE) / 2,
      'l_contrast_median',
    ),
  };
}
