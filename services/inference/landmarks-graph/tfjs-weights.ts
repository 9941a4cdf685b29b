/**
 * Reads a TensorFlow.js weights manifest and its binary shards: every tensor by name, as float32 values
 * in the manifest's shape. Quantised tensors (uint8 with a scale and a minimum) are dequantised the way
 * TensorFlow.js does, value = q · scale + min.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface ManifestEntry {
  readonly name: string;
  readonly shape: readonly number[];
  readonly dtype: 'float32';
  readonly quantization?: { readonly dtype: 'uint8'; readonly scale: number; readonly min: number };
}

interface ManifestGroup {
  readonly paths: readonly string[];
  readonly weights: readonly ManifestEntry[];
}

export interface WeightTensor {
  readonly shape: readonly number[];
  readonly values: Float32Array;
}

export function readTfjsWeights(manifestPath: string): Map<string, WeightTensor> {
  const groups = JSON.parse(readFileSync(manifestPath, 'utf8')) as ManifestGroup[];
  const tensors = new Map<string, WeightTensor>();
  for (const group of groups) {
    const shard = Buffer.concat(group.paths.map((path) => readFileSync(join(dirname(manifestPath), path))));
    let offset = 0;
    for (const entry of group.weights) {
      const size = entry.shape.reduce((product, dim) => product * dim, 1);
      const values = new Float32Array(size);
      const q = entry.quantization;
      if (q) {
        if (q.dtype !== 'uint8') throw new Error(`${entry.name}: unsupported quantisation ${q.dtype}`);
        for (let i = 0; i < size; i++) values[i] = shard[offset + i]! * q.scale + q.min;
        offset += size;
      } else {
        if (entry.dtype !== 'float32') throw new Error(`${entry.name}: unsupported dtype ${entry.dtype}`);
        const bytes = shard.subarray(offset, offset + size * 4);
        values.set(
          new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)),
        );
        offset += size * 4;
      }
      tensors.set(entry.name, { shape: entry.shape, values });
    }
    if (offset !== shard.length) throw new Error(`${manifestPath}: ${shard.length - offset} bytes left over`);
  }
  return tensors;
}
