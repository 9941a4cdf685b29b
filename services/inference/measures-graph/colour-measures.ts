/**
 * Colour features: the patch's average colour, how much of it is red or shiny, and how many small spots
 * stand out from their surroundings in redness or darkness. Every feature is [n, 1, 1, 1].
 */
import type { CielabTensors } from './cielab.ts';
import { LOCAL_MEAN_WINDOW, THRESHOLDS } from './features.ts';
import type { GraphBuilder } from './graph-builder.ts';

export type ColourFeatures = {
  l_mean: string;
  a_mean: string;
  b_mean: string;
  chroma_mean: string;
  red_spot_frac: string;
  dark_spot_frac: string;
  specular_frac: string;
  red_frac: string;
};

export function addColourFeatures(g: GraphBuilder, { l, a, b }: CielabTensors): ColourFeatures {
  const aSquared = g.node('Mul', [a, a], ['a_squared']);
  const bSquared = g.node('Mul', [b, b], ['b_squared']);
  const chromaSquared = g.node('Add', [aSquared, bSquared], ['chroma_squared']);
  const chroma = g.node('Sqrt', [chromaSquared], ['chroma']);

  // Shine is light and colourless at once: the surface reflects the light source, not the skin.
  const light = g.node('Greater', [l, g.scalar('specular_min_l', THRESHOLDS.specularMinL)], ['is_light']);
  const neutral = g.node(
    'Less',
    [chroma, g.scalar('specular_max_chroma', THRESHOLDS.specularMaxChroma)],
    ['is_neutral'],
  );
  const specular = g.node('And', [light, neutral], ['is_specular']);
  const red = g.node('Greater', [a, g.scalar('red_min_a', THRESHOLDS.redMinA)], ['is_red']);

  // A spot is measured against its neighbourhood, not an absolute level, so it is found on any skin tone.
  const contrast = g.scalar('spot_min_contrast', THRESHOLDS.spotContrast);
  const aAboveLocal = g.node('Sub', [a, addLocalMean(g, a, 'local_mean_a')], ['a_above_local']);
  const redSpot = g.node('Greater', [aAboveLocal, contrast], ['is_red_spot']);
  const lBelowLocal = g.node('Sub', [addLocalMean(g, l, 'local_mean_l'), l], ['l_below_local']);
  const darkSpot = g.node('Greater', [lBelowLocal, contrast], ['is_dark_spot']);

  return {
    l_mean: g.mean(l, 'l_mean'),
    a_mean: g.mean(a, 'a_mean'),
    b_mean: g.mean(b, 'b_mean'),
    chroma_mean: g.mean(chroma, 'chroma_mean'),
    red_spot_frac: g.fraction(redSpot, 'red_spot_frac'),
    dark_spot_frac: g.fraction(darkSpot, 'dark_spot_frac'),
    specular_frac: g.fraction(specular, 'specular_frac'),
    red_frac: g.fraction(red, 'red_frac'),
  };
}

/**
 * The mean over a LOCAL_MEAN_WINDOW² window around each pixel, same size as the input. Near the border
 * only the pixels inside the patch count (count_include_pad = 0), so edges are not pulled towards zero.
 */
function addLocalMean(g: GraphBuilder, input: string, output: string): string {
  const half = (LOCAL_MEAN_WINDOW - 1) / 2;
  return g.node('AveragePool', [input], [output], {
    kernel_shape: [LOCAL_MEAN_WINDOW, LOCAL_MEAN_WINDOW],
    pads: [half, half, half, half],
    count_include_pad: 0,
  });
}
