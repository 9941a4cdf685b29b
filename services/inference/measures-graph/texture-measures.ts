/**
 * Texture features: how L* varies across the patch, from slow tone changes to pore-sized detail and
 * horizontal lines. Filters are unpadded ("valid"): zero padding would read as a steep edge of L* = 0
 * around every patch, so each filter's output is smaller than its input and only real pixels count.
 * Every feature is [n, 1, 1, 1].
 */
import type { GraphBuilder } from './graph-builder.ts';

export type TextureFeatures = {
  l_std: string;
  fine_energy: string;
  coarse_energy: string;
  line_energy: string;
};

/** Discrete Laplacian: responds to pits and bumps a few pixels wide (pores, fine texture). */
const LAPLACIAN = [0, 1, 0, 1, -4, 1, 0, 1, 0];

/** Sobel d/dy (rows: up to down) then d/dx (columns: left to right), unnormalised. */
const SOBEL_DY = [-1, -2, -1, 0, 0, 0, 1, 2, 1];
const SOBEL_DX = [-1, 0, 1, -2, 0, 2, -1, 0, 1];

export function addTextureFeatures(g: GraphBuilder, l: string): TextureFeatures {
  // The 3×3 blur removes pixel noise and pores, leaving tone changes and lines: [n, 1, h−2, w−2].
  const blurred = g.node('AveragePool', [l], ['l_blurred'], { kernel_shape: [3, 3] });
  const laplacian = g.constant('laplacian_kernel', [1, 1, 3, 3], LAPLACIAN);

  return {
    l_std: addStandardDeviation(g, blurred),
    fine_energy: addLaplacianEnergy(g, l, laplacian, 'fine'),
    coarse_energy: addLaplacianEnergy(
      g,
      g.node('AveragePool', [l], ['l_half'], { kernel_shape: [2, 2], strides: [2, 2] }),
      laplacian,
      'coarse',
    ),
    line_energy: addLineEnergy(g, blurred),
  };
}

/** Population standard deviation, centred first: mean(x²) − mean(x)² loses the small variances in float32. */
function addStandardDeviation(g: GraphBuilder, input: string): string {
  const centred = g.node('Sub', [input, g.mean(input, 'l_blurred_mean')], ['l_blurred_centred']);
  const squared = g.node('Mul', [centred, centred], ['l_blurred_centred_squared']);
  const variance = g.mean(squared, 'l_blurred_variance');
  return g.node('Sqrt', [variance], ['l_std']);
}

/** Mean |Laplacian| of `input`; `scale` names the tensors ('fine', 'coarse'). */
function addLaplacianEnergy(g: GraphBuilder, input: string, kernel: string, scale: string): string {
  const response = g.node('Conv', [input, kernel], [`${scale}_laplacian`]);
  const magnitude = g.node('Abs', [response], [`${scale}_laplacian_abs`]);
  return g.mean(magnitude, `${scale}_energy`);
}

/**
 * Horizontal lines make L* change down the patch but not across it, so vertical gradient energy minus
 * horizontal gradient energy isolates them; evenly textured skin scores about zero, vertical structures
 * (clipped by Relu) exactly zero.
 */
function addLineEnergy(g: GraphBuilder, blurred: string): string {
  const sobel = g.constant('sobel_dy_dx_kernels', [2, 1, 3, 3], [...SOBEL_DY, ...SOBEL_DX]);
  const gradients = g.node('Conv', [blurred, sobel], ['l_gradients']);
  const magnitudes = g.node('Abs', [gradients], ['l_gradients_abs']);
  const energies = g.mean(magnitudes, 'l_gradient_energies');
  const dyMinusDx = g.constant('dy_minus_dx_weights', [1, 2, 1, 1], [1, -1]);
  const difference = g.node('Conv', [energies, dyMinusDx], ['line_energy_unclipped']);
  return g.node('Relu', [difference], ['line_energy']);
}
