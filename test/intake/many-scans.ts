/**
 * A progressive JPEG with as many scans as its format allows: a grey image of one component whose every
 * coefficient (the DC and the 63 AC) is sent first at the coarsest precision (Al 13) and then refined bit
 * by bit down to Al 0, 14 scans each, 896 in all — a valid successive-approximation progression that
 * libjpeg decodes scan by scan over the whole frame. All AC coefficients are zero, so an AC scan is a few
 * end-of-band runs of up to 32 767 blocks each: the scans cost the file almost nothing, the decoder a full
 * pass over every block each (the "EOB run" issue of progressive JPEG, libjpeg-turbo's LJT-01-003).
 */

/** The JPEG, `width`×`height`, with `scans` of its progression (all 896 by default). */
export function manyScanJpeg(width: number, height: number, scans = 896): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  const parts: Buffer[] = [Buffer.from([0xff, 0xd8])];
  const segment = (marker: number, body: number[]) => {
    const b = Buffer.from([0xff, marker, 0, 0, ...body]);
    b.writeUInt16BE(body.length + 2, 2);
    parts.push(b);
  };
  segment(0xdb, [0, ...new Array(64).fill(1)]); // one quantisation table of ones
  segment(0xc2, [8, height >> 8, height & 255, width >> 8, width & 255, 1, 1, 0x11, 0]); // progressive
  // DC: one code, "0" for a difference of category 0. AC: 4-bit codes for EOB runs EOB0–EOB14.
  segment(0xc4, [0x00, 1, ...new Array(15).fill(0), 0x00]);
  const eobRuns = Array.from({ length: 15 }, (_, r) => r << 4);
  segment(0xc4, [0x10, 0, 0, 0, 15, ...new Array(12).fill(0), ...eobRuns]);
  let sent = 0;
  for (let k = 0; k < 64 && sent < scans; k++) {
    for (let al = 13; al >= 0 && sent < scans; al--, sent++) {
      const ah = al === 13 ? 0 : al + 1;
      segment(0xda, [1, 1, 0x00, k, k, (ah << 4) | al]);
      parts.push(k === 0 ? dcScan(blocks) : acScan(blocks));
    }
  }
  parts.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

/** One bit a block: a zero difference (first scan) or a zero refinement bit. */
function dcScan(blocks: number): Buffer {
  const bits = new BitWriter();
  for (let i = 0; i < blocks; i++) bits.write(0, 1);
  return bits.end();
}

/** End-of-band runs over every block: EOBr (4-bit code r) and r bits, a run of 2^r + those bits. */
function acScan(blocks: number): Buffer {
  const bits = new BitWriter();
  for (let left = blocks; left > 0; ) {
    const run = Math.min(left, 32767);
    const r = Math.floor(Math.log2(run));
    bits.write(r, 4);
    bits.write(run - (1 << r), r);
    left -= run;
  }
  return bits.end();
}

/** Entropy-coded bytes: most significant bit first, 0xFF stuffed with 0x00, the last byte padded with ones. */
class BitWriter {
  readonly #bytes: number[] = [];
  #byte = 0;
  #count = 0;

  write(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.#byte = (this.#byte << 1) | ((value >> i) & 1);
      if (++this.#count === 8) this.#flush();
    }
  }

  end(): Buffer {
    while (this.#count !== 0) this.write(1, 1);
    return Buffer.from(this.#bytes);
  }

  #flush(): void {
    this.#bytes.push(this.#byte);
    if (this.#byte === 0xff) this.#bytes.push(0);
    this.#byte = 0;
    this.#count = 0;
  }
}
