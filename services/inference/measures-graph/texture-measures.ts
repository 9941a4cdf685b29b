/**
 * Texture features: how L* varies across the patch, from pore-sized pits to coarse relief and
 * horizontal lines (tone, the slow changes, is tone-measures.ts). Linear filters are unpadded ("valid"): zero padding would read as a steep edge of
 * L* = 0 around every patch, so each filter's output is smaller than its input and only real pixels count;
 * the Gaussians are zero-padded but divided by the same blur of their weights, and the closings and
 * openings are MaxPools, whose padding never wins.
 * Every feature is [n, 1, 1, 1].
 */

import { addContrast } from './contrast-measures.ts';
import { PATCH_SIZE, THRESHOLDS } from './features.ts';
import {
  addClosing,
  addGaussianBlur,
  addNormalisedBlur,
  addOpening,
  addSquareMax,
  weightedMean,
} from './filters.ts';
import { FLOAT, type GraphBuilder } from './graph-builder.ts';

export type TextureFeatures = {
  pit_depth: string;
  grain_height: string;
  coarse_energy: string;
  line_energy: string;
  l_contrast: string;
  l_contrast_sides: string;
  l_contrast_median: string;
};

/**
 * Coarse texture: details narrower than PORE_SQUARE (odd, pixels) are levelled by an opening and a
 * closing by reconstruction (RECONSTRUCTION_STEPS geodesic dilations by a GROWTH_SQUARE each), the rest
 * smoothed by a Gaussian of COARSE_SIGMA pixels, less its Gaussian mean of RELIEF_SIGMA pixels (what is
 * wider than relief of a few millimetres: tone patches, light and shade), then its range over a
 * COARSE_WINDOW square (odd). RELIEF_SIGMA is 6.5 (7 before `skin-measures-24.0.0`): at 7 the soft edge of
 * a tone blotch 10 mm across still read as relief (face c, uneven tone → texture 6.5 points).
 */
const PORE_SQUARE = 5;
const RECONSTRUCTION_STEPS = 3;
const GROWTH_SQUARE = 5;
const COARSE_SIGMA = 1.5;
const RELIEF_SIGMA = 6.5;
const COARSE_WINDOW = 9;
/**
 * Spots are filled in for texture from the clear skin around them: every pixel within SPOT_FILL_WINDOW
 * (odd) of a spot is replaced by the Gaussian mean (σ = SPOT_FILL_SIGMA) of the clear skin, blended
 * back to L* over a Gaussian of SPOT_BLEND_SIGMA, so that the fill has no edge of its own.
 */
const SPOT_FILL_WINDOW = 13;
const SPOT_FILL_SIGMA = 4;
const SPOT_BLEND_SIGMA = 3;

/** Pores: the Gaussian (pixels) of the clear skin around each pixel that its depth is measured against. */
const PORE_SURROUND_SIGMA = 3;
/**
 * Pits are filled by a closing by reconstruction: a dilation by a 3×3 square, then this many erosions by
 * a 3×3 square, each no lower than the detail itself. A pit — darker than all the skin around it — is
 * filled to its rim; a hollow of coarser relief, a valley that runs on to lower ground, is given back as
 * it was, where a plain closing lifted every point of it by its curvature (docs/inference.md).
 */
const PIT_RECONSTRUCTION_STEPS = 8;
/**
 * Pits are read only this far (2σ of the surround, pixels) inside the patch's edge: nearer the edge the
 * surround is one-sided, and an edge of tone or relief that ends at the region's border reads as pits.
 */
const PORE_MARGIN = 2 * PORE_SURROUND_SIGMA;
/**
 * Pits count only on level skin: where the detail smoothed by a Gaussian of LEVEL_SIGMA pixels lies within
 * LEVEL_TOLERANCE (L*) of zero fully, not at all from twice that. On the slopes, hollows and bumps of relief
 * a few millimetres wide (texture's) the curvature reads as pits; a pore is narrower than the Gaussian.
 */
const LEVEL_SIGMA = 2;
const LEVEL_TOLERANCE = 0.5;

/** Second differences down the patch (d²/dy²) and across it (d²/dx²), as 3×3 kernels. */
const SECOND_DY = [0, 1, 0, 0, -2, 0, 0, 1, 0];
const SECOND_DX = [0, 0, 0, 1, -2, 1, 0, 0, 0];

/**
 * Lines: the curvature of L* smoothed by a Gaussian of LINE_SIGMA pixels, less the curvature down the
 * patch at the coarser LINE_BROAD_SIGMA, which a crease a few pixels wide hardly has. LINE_SIGMA is about
 * 0.7 samples of the forehead (2.9 pixels a sample down it): at σ 1.5 (0.5 samples) the lines read
 * included detail of a sample or so, which a photo made smaller or re-compressed no longer holds, and a
 * photo resized by 0.75 read fewer lines (8 of 52 reference photos moved by more than 3 points).
 */
const LINE_SIGMA = 2;
const LINE_BROAD_SIGMA = 4;

/**
 * `poreFloor` (a rank-0 float, L*) is the depth a pit must exceed to count as a pore: the photo's own
 * grain (scoring.ts derives it from `grain_height`). `spots` ([n, 1, h, w] bool) marks spot pixels: pores
 * are measured on the skin around them (each output pixel whose filter window comes near a spot is left
 * out), coarse texture on L* with the
 * spots filled in from the skin around them, so that spots count as spots, not as pores or rough
 * texture.
 */
export function addTextureFeatures(
  g: GraphBuilder,
  l: string,
  spots: string,
  poreFloor: string,
): TextureFeatures {
  // The 3×3 blur removes pixel noise and pores, leaving tone changes and lines: [n, 1, h−2, w−2].
  const blurred = g.node('AveragePool', [l], ['l_blurred'], { kernel_shape: [3, 3] });
  const cap = g.scalar('texture_cap', THRESHOLDS.textureCap);
  const spotMask = g.node('Cast', [spots], ['texture_spot_mask'], { to: FLOAT });
  // Kept weights, aligned with each filter's valid output and widened around every spot.
  const keep = (mask: string, window: number, pad: number, name: string) =>
    g.node(
      'Sub',
      [
        g.scalar(`${name}_one`, 1),
        g.node('MaxPool', [mask], [`${name}_near_spot`], {
          kernel_shape: [window, window],
          pads: [pad, pad, pad, pad],
        }),
      ],
      [name],
    );
  const clear = keep(spotMask, 9, 4, 'clear_of_spots');
  const half = (SPOT_FILL_WINDOW - 1) / 2;
  const textureClear = keep(spotMask, SPOT_FILL_WINDOW, half, 'texture_clear_of_spots');

  const pits = addPitDepth(g, l, cap, clear, poreFloor);
  return {
    pit_depth: pits.depth,
    grain_height: pits.grain,
    coarse_energy: addCoarseEnergy(g, addSpotsFilledIn(g, l, textureClear)),
    line_energy: addLineEnergy(
      g,
      addNormalisedBlur(g, l, LINE_SIGMA, 'line_l'),
      addNormalisedBlur(g, l, LINE_BROAD_SIGMA, 'line_broad_l'),
    ),
    ...addContrast(g, l, blurred),
  };
}

/**
 * Pores are small dark pits: the black top-hat by reconstruction with a 3×3 square — the closing by
 * reconstruction of the detail minus the detail — is how far each pixel lies below the rim of the pit it is
 * in, and is zero on bumps, slopes, anything wider than a pit and valleys that run on to lower ground. The detail
 * is L* minus its Gaussian mean over the clear skin around it (σ = PORE_SURROUND_SIGMA, spots left out),
 * so the curvature of coarser relief and of tone patches, which the closing would otherwise read as
 * shallow pits, is taken away first. Each pixel counts up to THRESHOLDS.textureCap, less `floor` (clipped
 * at 0), times how level the skin around it is (addLevelSkin: relief of a few millimetres, texture's, curves
 * at a pit's scale too), spots and their surroundings left out.
 *
 * The photo's grain — sensor noise, compression, resampling — makes pits of this size too, and as many
 * bumps: the white top-hat (the detail minus its 3×3 opening), averaged the same way, is `grain`, how high
 * the patch's small bright specks stand. Pores, lines and hair are dark; grain is as often bright as dark.
 */
function addPitDepth(
  g: GraphBuilder,
  l: string,
  cap: string,
  clear: string,
  floor: string,
): { depth: string; grain: string } {
  const around = g.node(
    'Div',
    [
      addGaussianBlur(g, g.node('Mul', [l, clear], ['pore_l_clear']), PORE_SURROUND_SIGMA, 'pore_l_around'),
      g.node(
        'Max',
        [
          addGaussianBlur(g, clear, PORE_SURROUND_SIGMA, 'pore_clear_around'),
          g.scalar('pore_least_share', 1e-3),
        ],
        ['pore_clear_around_kept'],
      ),
    ],
    ['pore_surround'],
  );
  const detail = g.node('Sub', [l, around], ['pore_detail']);
  const depth = g.node(
    'Sub',
    [addClosingByReconstruction(g, detail, 'pore_detail'), detail],
    ['pit_depth_map'],
  );
  const capped = g.node('Min', [depth, cap], ['pit_depth_capped']);
  const beyond = g.node(
    'Relu',
    [g.node('Sub', [capped, floor], ['pit_depth_less_floor'])],
    ['pit_depth_beyond'],
  );
  const opened = addOpening(g, detail, 3, 'grain_detail');
  const height = g.node(
    'Min',
    [g.node('Sub', [detail, opened], ['grain_height_map']), cap],
    ['grain_height_capped'],
  );
  // The inner part of the patch, PORE_MARGIN from each edge: [n, 1, h − 2·margin, w − 2·margin].
  const bounds = [
    g.ints('pore_inner_starts', [PORE_MARGIN, PORE_MARGIN]),
    g.ints('pore_inner_ends', [PATCH_SIZE - PORE_MARGIN, PATCH_SIZE - PORE_MARGIN]),
    g.ints('pore_inner_axes', [2, 3]),
  ];
  const inner = (x: string, out: string) => g.node('Slice', [x, ...bounds], [out]);
  const weights = inner(clear, 'pore_weights_inner');
  const onLevelSkin = g.node('Mul', [beyond, addLevelSkin(g, detail)], ['pit_depth_on_level_skin']);
  return {
    depth: weightedMean(g, inner(onLevelSkin, 'pit_depth_inner'), weights, 'pit_depth'),
    grain: weightedMean(g, inner(height, 'grain_height_inner'), weights, 'grain_height'),
  };
}

/**
 * How level the skin around each pixel is, 1 to 0: 1 where the detail smoothed by a Gaussian of
 * LEVEL_SIGMA lies within LEVEL_TOLERANCE of zero, falling to 0 at twice that.
 */
function addLevelSkin(g: GraphBuilder, detail: string): string {
  const tolerance = g.scalar('level_tolerance', LEVEL_TOLERANCE);
  const slope = g.node(
    'Abs',
    [addNormalisedBlur(g, detail, LEVEL_SIGMA, 'level_detail')],
    ['level_detail_abs'],
  );
  const excess = g.node(
    'Div',
    [g.node('Sub', [slope, tolerance], ['level_excess']), tolerance],
    ['level_excess_share'],
  );
  const clipped = g.node(
    'Clip',
    [excess, g.scalar('level_zero', 0), g.scalar('level_one', 1)],
    ['level_excess_clipped'],
  );
  return g.node('Sub', [g.scalar('level_full', 1), clipped], ['level_skin']);
}

/**
 * L* with each spot and its surroundings (`clear` is 0 there) filled in from the clear skin around them —
 * the Gaussian mean (σ = SPOT_FILL_SIGMA) of the clear pixels, L* itself where none is that close — and
 * blended into L* by the Gaussian of `clear` (σ = SPOT_BLEND_SIGMA), so that the fill meets the skin
 * around it without an edge: spots count as spots, not as rough texture, and neither do their soft halos
 * or the rim of their fill.
 */
function addSpotsFilledIn(g: GraphBuilder, l: string, clear: string): string {
  const sum = addGaussianBlur(g, g.node('Mul', [l, clear], ['l_clear']), SPOT_FILL_SIGMA, 'l_clear_around');
  const share = addGaussianBlur(g, clear, SPOT_FILL_SIGMA, 'clear_share_around');
  const least = g.scalar('fill_least_share', 1e-3);
  const around = g.node(
    'Div',
    [sum, g.node('Max', [share, least], ['clear_share_kept'])],
    ['l_around_spots'],
  );
  const fillable = g.node('Greater', [share, least], ['clear_skin_around']);
  const fill = g.node('Where', [fillable, around, l], ['l_fill']);
  const kept = addNormalisedBlur(g, clear, SPOT_BLEND_SIGMA, 'clear_blend');
  const filled = g.node(
    'Mul',
    [g.node('Sub', [g.scalar('fill_full', 1), kept], ['fill_share']), fill],
    ['l_fill_part'],
  );
  return g.node('Add', [g.node('Mul', [kept, l], ['l_kept_part']), filled], ['l_spots_filled']);
}

/**
 * Coarse texture: bumps and hollows up to about a third of the patch's tenth wide. In L* (spots filled in)
 * pores and pixel noise — details a PORE_SQUARE square does not fit in — are levelled by an opening and a
 * closing by reconstruction, which give every wider structure back with its own shape (a blur strong
 * enough to take pores away would round the relief off until it looked like tone patches); a Gaussian of
 * σ = COARSE_SIGMA smooths what is left, and its Gaussian mean of σ = RELIEF_SIGMA is taken away: relief of a
 * few millimetres stays, tone patches (about 10 mm) and light and shade go, which the range alone read by
 * a blotch's rounded top. Then each pixel reads its morphological range, the closing minus the opening
 * with a COARSE_WINDOW square — how far it lies inside a hollow or on a bump narrower than the square.
 */
function addCoarseEnergy(g: GraphBuilder, filled: string): string {
  // Bright details first (an opening), then dark ones (a closing: the opening of the negation).
  const brightLevelled = addOpeningByReconstruction(g, filled, 'pore_bright');
  const negated = g.node('Neg', [brightLevelled], ['pore_bright_levelled_negated']);
  const levelled = g.node('Neg', [addOpeningByReconstruction(g, negated, 'pore_dark')], ['pore_free_l']);
  const fine = addNormalisedBlur(g, levelled, COARSE_SIGMA, 'coarse_l');
  const smoothed = g.node(
    'Sub',
    [fine, addNormalisedBlur(g, fine, RELIEF_SIGMA, 'coarse_wide')],
    ['coarse_relief'],
  );
  const closed = addClosing(g, smoothed, COARSE_WINDOW, 'coarse');
  const opened = addOpening(g, smoothed, COARSE_WINDOW, 'coarse');
  return g.mean(g.node('Sub', [closed, opened], ['coarse_range']), 'coarse_energy');
}

/**
 * The opening by reconstruction of `input`: eroded by a PORE_SQUARE square, then grown back by
 * RECONSTRUCTION_STEPS dilations by a GROWTH_SQUARE square, each no higher than `input` itself. Bright
 * details the square does not fit in are levelled to the skin around them; wider ones are rebuilt with
 * their shape, which a plain opening or a blur would round off.
 */
function addOpeningByReconstruction(g: GraphBuilder, input: string, name: string): string {
  const eroded = g.node(
    'Neg',
    [addSquareMax(g, g.node('Neg', [input], [`${name}_negated`]), PORE_SQUARE, `${name}_eroded_negated`)],
    [`${name}_eroded`],
  );
  let marker = eroded;
  for (let step = 1; step <= RECONSTRUCTION_STEPS; step++) {
    const grown = addSquareMax(g, marker, GROWTH_SQUARE, `${name}_grown_${step}`);
    marker = g.node('Min', [grown, input], [`${name}_rebuilt_${step}`]);
  }
  return marker;
}

/**
 * The closing by reconstruction of `input`: its dilation by a 3×3 square, then PIT_RECONSTRUCTION_STEPS
 * erosions by a 3×3 square, each no lower than `input` — computed on the negation, where the erosions are
 * dilations (`MaxPool`s) each no higher than −input (`Min`). Dark details the square does not fit in and
 * that are darker than everything around them are filled in; every other surface comes back as it was.
 */
function addClosingByReconstruction(g: GraphBuilder, input: string, name: string): string {
  const negated = g.node('Neg', [input], [`${name}_negated`]);
  let marker = g.node('Neg', [addSquareMax(g, input, 3, `${name}_dilated`)], [`${name}_dilated_negated`]);
  for (let step = 1; step <= PIT_RECONSTRUCTION_STEPS; step++) {
    const grown = addSquareMax(g, marker, 3, `${name}_regrown_${step}`);
    marker = g.node('Min', [grown, negated], [`${name}_rebuilt_${step}`]);
  }
  return g.node('Neg', [marker], [`${name}_closed_by_reconstruction`]);
}

/**
 * Horizontal lines: a wrinkle is a thin dark crease, a valley of L* across which it curves up sharply
 * (its second difference down the patch is positive) while along it L* hardly curves. Each pixel counts
 * that second difference of the finely smoothed L*, minus the absolute one across the patch (vertical
 * structures and slopes), minus the positive one down the patch of the broadly smoothed L* (broad
 * shading and the soft rims of highlights curve as much at both scales; a thin crease only at the fine
 * one), clipped at 0: even skin and bright ridges read zero wherever they are, rather than cancelling
 * lines elsewhere in the patch. Valid 3×3 second differences.
 */
function addLineEnergy(g: GraphBuilder, fine: string, broad: string): string {
  const kernels = g.constant('second_dy_dx_kernels', [2, 1, 3, 3], [...SECOND_DY, ...SECOND_DX]);
  const curvatures = g.node('Conv', [fine, kernels], ['l_curvatures']);
  const [down, across] = ['l_curvature_down', 'l_curvature_across'];
  g.node('Split', [curvatures], [down, across], { axis: 1 });
  const broadDown = g.node(
    'Relu',
    [
      g.node(
        'Conv',
        [broad, g.constant('second_dy_kernel', [1, 1, 3, 3], SECOND_DY)],
        ['l_broad_curvature_down'],
      ),
    ],
    ['l_broad_valley'],
  );
  const bent = g.node('Abs', [across], ['l_curvature_across_abs']);
  const excess = g.node(
    'Sub',
    [g.node('Sub', [down, bent], ['line_excess_across']), broadDown],
    ['line_excess'],
  );
  return g.mean(g.node('Relu', [excess], ['line_map']), 'line_energy');
}
