/**
 * The controlled edits paint what they say (test/inference/support/edits.ts): a blurred shape fades out
 * smoothly. An SVG filter renders only inside its region — by default the shape's bounding box grown by
 * 10 % — so a blur wider than that was cut off in a hard-edged rectangle, which the texture measure read
 * as relief (docs/inference.md, Controlled edits).
 */
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../services/inference/landmarks.ts';
import { edit, faceGeometry } from './support/edits.ts';
import { moreFace } from './support/photos.ts';

describe('controlled edits', () => {
  it('a tone blotch fades out beyond its edge, not cut off where its bounding box ends', async () => {
    const photo = await moreFace('g');
    const detector = await FaceDetector.load();
    const landmarker = await FaceLandmarker.load();
    const g = await faceGeometry(photo, detector, landmarker);
    await Promise.all([detector.release(), landmarker.release()]);
    const grey = async (image: Buffer) => (await sharp(image).greyscale().raw().toBuffer()) as Uint8Array;
    const [before, after] = await Promise.all([grey(photo), grey(await edit(photo, g, 'uneven_tone', 3))]);
    // How much the edit darkened the photo, over 5×5 pixels (JPEG's noise averaged out), `du` eye distances
    // along the eye line from the right cheek's upper outer blotch (0.08 eye distances to each side of
    // its centre, blurred by σ 0.035).
    const { centre, w, h } = g.regions.right_cheek;
    const { u, v, d } = g.frame;
    const darkened = (du: number) => {
      const x = Math.round(centre[0] + ((-0.45 * w) / 2 + du) * d * u[0] + ((-0.35 * h) / 2) * d * v[0]);
      const y = Math.round(centre[1] + ((-0.45 * w) / 2 + du) * d * u[1] + ((-0.35 * h) / 2) * d * v[1]);
      let sum = 0;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++)
          sum += before[(y + dy) * g.width + x + dx]! - after[(y + dy) * g.width + x + dx]!;
      return sum / 25;
    };
    const middle = darkened(0);
    // Outwards (towards the ear), 0.14 eye distances from the centre, 0.06 past the edge: the blur still
    // holds about a tenth of the blotch there (2.8 of 32 levels); cut off, it held nothing (0.2).
    const beyond = darkened(-0.14);
    assert.ok(middle > 15, `the blotch darkened little: ${middle}`);
    assert.ok(
      beyond > 0.05 * middle,
      `0.14 from the centre ${beyond.toFixed(1)}, at the centre ${middle.toFixed(1)}`,
    );
    assert.ok(darkened(-0.2) < 0.05 * middle, 'the blur reaches too far');
  });
});
