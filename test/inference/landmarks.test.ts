import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromBinary } from '@bufbuild/protobuf';
import { ModelProtoSchema, type ValueInfoProto } from 'onnx-buf';
import sharp from 'sharp';
import { decodeImage, type RgbImage } from '../../services/inference/decode.ts';
import type { Face, Point } from '../../services/inference/face.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker, type Landmarks, MIRROR } from '../../services/inference/landmarks.ts';
import { buildLandmarksModel, LANDMARKS_MODEL_PATH } from '../../services/inference/landmarks-graph/build.ts';
import { faceFrame, meanOf } from '../../services/inference/regions.ts';
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
});
