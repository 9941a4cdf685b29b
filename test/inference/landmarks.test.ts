import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromBinary } from '@bufbuild/protobuf';
import { ModelProtoSchema, type ValueInfoProto } from 'onnx-buf';
import sharp from 'sharp';
import { decodeImage, type RgbImage } from '../../services/inference/decode.ts';
import type { Face, Point } from '../../services/inference/face.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import {
  cropFrame,
  FaceLandmarker,
  fillCheekMarks,
  type Landmarks,
  MIRROR,
} from '../../services/inference/landmarks.ts';
import {
  buildLandmarksModel,
  LANDMARKS_INPUT_SIZE,
  LANDMARKS_MODEL_PATH,
} from '../../services/inference/landmarks-graph/build.ts';
import { faceFrame, meanOf } from '../../services/inference/regions.ts';
import { edit, faceGeometry } from './support/edits.ts';
import { type FaceName, singleFace } from './support/photos.ts';

const FACES: FaceName[] = ['a', 'b', 'c', 'd'];

describe('face landmarks', function () {
  this.timeout(60_000);
  let detector: FaceDetector;
  let landmarker: FaceLandmarker;

  before(async () => {
    detector = await FaceDetector.load();
    landmarker = await FaceLandmarker.load();
  });

  async function locate(photo: Buffer): Promise<{ image: RgbImage; face: Face; points: Landmarks }> {
    const image = await decodeImage(photo);
    const [face] = await detector.detect(image);
    assert.ok(face, 'a face is found');
    return { image, face, points: await landmarker.locate(image, face) };
  }

  describe('the committed model', () => {
    it('is byte for byte what buildLandmarksModel() builds from the package weights (rebuild: node services/inference/landmarks-graph/build.ts)', () => {
      assert.ok(Buffer.from(buildLandmarksModel()).equals(readFileSync(LANDMARKS_MODEL_PATH)));
    });

    it('names its version and licence, and maps a 112×112 crop to 136 coordinates', () => {
      const model = fromBinary(ModelProtoSchema, readFileSync(LANDMARKS_MODEL_PATH));
      const meta = Object.fromEntries(model.metadataProps.map((p) => [p.key, p.value]));
      assert.match(meta.version!, /^face-landmarks-68-/);
      assert.match(meta.licence!, /^MIT/);
      const dims = (v: ValueInfoProto) =>
        v.type!.value.case === 'tensorType'
          ? v.type!.value.value.shape?.dim.map((d) =>
              d.value.case === 'dimValue' ? Number(d.value.value) : d.value.value,
            )
          : undefined;
      assert.deepEqual(dims(model.graph!.input[0]!), ['n', 3, 112, 112]);
      assert.deepEqual(dims(model.graph!.output[0]!), ['n', 136]);
    });

    it('adds each output of a dense block once, to a running sum (three Adds a block, no Sum of several)', () => {
      const { node } = fromBinary(ModelProtoSchema, readFileSync(LANDMARKS_MODEL_PATH)).graph!;
      const count = (op: string) => node.filter((n) => n.opType === op).length;
      assert.equal(count('Sum'), 0);
      // The four blocks' running sums and the fully connected layer's bias.
      assert.equal(count('Add'), 4 * 3 + 1);
      assert.ok(node.every((n) => n.opType !== 'Add' || n.input.length === 2));
    });
  });

  for (const name of FACES) {
    it(`face ${name}: eyes, nose and mouth land on BlazeFace's keypoints; brows above the eyes, chin below the mouth`, async () => {
      const { face, points } = await locate(await singleFace(name));
      const [rightEye, leftEye, nose, mouth] = face.keypoints;
      const { u, v, d } = faceFrame(points);
      const near = (label: string, a: Point, b: Point, within: number) => {
        const off = Math.hypot(a[0] - b[0], a[1] - b[1]) / d;
        assert.ok(off <= within, `${label} is ${off.toFixed(2)} eye distances from the keypoint`);
      };
      near('right eye', meanOf(points, [36, 37, 38, 39, 40, 41]), rightEye, 0.15);
      near('left eye', meanOf(points, [42, 43, 44, 45, 46, 47]), leftEye, 0.15);
      near('nose tip', points[30]!, nose, 0.25);
      near('mouth', meanOf(points, [48, 54, 51, 57]), mouth, 0.25);
      const down = (p: Point) => p[0] * v[0] + p[1] * v[1];
      const across = (p: Point) => p[0] * u[0] + p[1] * u[1];
      const eyes = down(meanOf(points, [36, 45]));
      assert.ok(down(meanOf(points, [19, 24])) < eyes - 0.15 * d, 'brows above the eyes');
      assert.ok(down(points[8]!) > down(points[57]!) + 0.2 * d, 'chin below the lower lip');
      assert.ok(
        across(points[0]!) < across(points[36]!) && across(points[16]!) > across(points[45]!),
        'jaw outside the eyes',
      );
    });
  }

  it('a mirrored photo gets the mirrored landmarks (within 2 % of the eye distance)', async () => {
    const photo = await singleFace('b');
    const width = (await sharp(photo).metadata()).width!;
    const { points } = await locate(photo);
    const { points: mirrored } = await locate(await sharp(photo).flop().png().toBuffer());
    const { d } = faceFrame(points);
    for (const [i, j] of [
      [36, 45],
      [30, 30],
      [48, 54],
      [8, 8],
      [19, 24],
    ] as const) {
      const off = Math.hypot(points[i]![0] - (width - 1 - mirrored[j]![0]), points[i]![1] - mirrored[j]![1]);
      assert.ok(off <= 0.02 * d, `point ${i} moved ${(off / d).toFixed(3)} eye distances`);
    }
  });

  // Landmarks are pixel-centre coordinates (pixel x at x): a mirror takes x to width − 1 − x. The crop of a
  // lossless mirror is the mirrored crop, so every point is the mirror of its partner to float rounding
  // (before the crop's centre was put in pixel-centre coordinates: up to 3.9 pixels off on a reference photo).
  it('a lossless mirror gets exactly the mirrored landmarks, all 68', async () => {
    const { data, info } = await sharp(await singleFace('b'))
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
    const { points } = await locate(await sharp(data, raw).png().toBuffer());
    const { points: mirrored } = await locate(await sharp(data, raw).flop().png().toBuffer());
    points.forEach((point, i) => {
      const partner = mirrored[MIRROR[i]!]!;
      const off = Math.hypot(point[0] - (info.width - 1 - partner[0]), point[1] - partner[1]);
      assert.ok(off < 1e-3, `point ${i} is ${off} pixels off the mirror of point ${MIRROR[i]}`);
    });
  });

  describe("the cheeks' marks, filled in before the network reads the crop", () => {
    const size = LANDMARKS_INPUT_SIZE;
    // A 100-pixel face box, eyes 30 pixels apart: the crop is 110 pixels across, an eye distance 30.5 of its 112.
    const face: Face = {
      box: { x: 0, y: 0, w: 100, h: 100 },
      score: 1,
      keypoints: [
        [35, 40],
        [65, 40],
        [50, 60],
        [50, 75],
        [15, 45],
        [85, 45],
      ],
    };
    /** A crop of even skin with a gentle slope of light across it, and 3×3 dots of `depth` at the given pixels. */
    function skin(dots: Point[], depth: number): Float32Array {
      const crop = new Float32Array(3 * size * size);
      for (let c = 0; c < 3; c++) {
        for (let i = 0; i < size * size; i++) crop[c * size * size + i] = 150 + 0.3 * (i % size) - 10 * c;
        for (const [x, y] of dots) {
          for (let dy = -1; dy <= 1; dy++) {
            for (let dx = -1; dx <= 1; dx++) crop[c * size * size + (y + dy) * size + x + dx]! -= depth;
          }
        }
      }
      return crop;
    }
    // The cheeks' middles: 0.5 eye distances below each eye keypoint and 0.06 out, in crop pixels.
    const cheeks: Point[] = [
      [39, 62],
      [72, 62],
    ];

    it('fills in a dark spot on either cheek from the skin around it', () => {
      const crop = skin(cheeks, 90);
      fillCheekMarks(crop, face, cropFrame(face));
      const plain = skin([], 0);
      for (const [x, y] of cheeks) {
        for (let c = 0; c < 3; c++) {
          const at = c * size * size + y * size + x;
          assert.ok(
            Math.abs(crop[at]! - plain[at]!) <= 2,
            `(${x}, ${y}) channel ${c}: ${crop[at]} for ${plain[at]}`,
          );
        }
      }
    });

    it('leaves skin without marks, faint details and everything outside the cheeks as they were', () => {
      const plain = skin([], 0);
      const filled = skin([], 0);
      fillCheekMarks(filled, face, cropFrame(face));
      assert.deepEqual(filled, plain);
      // 6 levels deep: under MARK_DEPTH, skin's own grain, not a mark.
      const faint = skin(cheeks, 6);
      const faintFilled = skin(cheeks, 6);
      fillCheekMarks(faintFilled, face, cropFrame(face));
      assert.deepEqual(faintFilled, faint);
      // The eyes, the nose and the mouth corners: features, not cheek.
      const features: Point[] = [
        [41, 47],
        [72, 47],
        [56, 68],
        [45, 84],
        [66, 84],
      ];
      const marked = skin(features, 90);
      const markedFilled = skin(features, 90);
      fillCheekMarks(markedFilled, face, cropFrame(face));
      assert.deepEqual(markedFilled, marked);
    });

    // The edit matrix's strong dark-spot edit on face c (twelve brown spots of 0.07 eye distances) moved
    // the lower lids up by 0.019 eye distances, and dark circles by 7 points, while the network read the spots.
    it('face c: brown spots on the cheeks move the lower lids by less than 0.01 eye distances', async () => {
      const photo = await singleFace('c');
      const { points } = await locate(photo);
      const spotted = await edit(photo, await faceGeometry(photo, detector, landmarker), 'dark_spots', 3);
      const { points: after } = await locate(spotted);
      const { v, d } = faceFrame(points);
      const lids = [40, 41, 46, 47];
      const [x0, y0] = meanOf(points, lids);
      const [x1, y1] = meanOf(after, lids);
      const moved = Math.abs((x1 - x0) * v[0] + (y1 - y0) * v[1]) / d;
      assert.ok(moved < 0.01, `the lids moved ${moved.toFixed(4)} eye distances`);
    });
  });
});
