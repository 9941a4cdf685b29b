import assert from 'node:assert/strict';
import sharp from 'sharp';
import { CALIBRATION } from '../../services/inference/calibration/calibration.ts';
import {
  FaceAnalysis as Analysis,
  type FaceAnalysis,
  type FaceAnalysisEvent,
  STAGES,
} from '../../services/inference/face-analysis.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { MEASURES } from '../../services/shared/measures.ts';
import { addCheekRedness, addDarkSpots } from './support/paint.ts';
import {
  type FaceName,
  groupPhoto,
  landscape,
  MORE_FACES,
  type MoreFaceName,
  moreFace,
  pixelBomb,
  singleFace,
  turnedFace,
} from './support/photos.ts';

async function run(analysis: FaceAnalysis, photo: Uint8Array): Promise<FaceAnalysisEvent[]> {
  const events: FaceAnalysisEvent[] = [];
  for await (const event of analysis.analyze(photo)) events.push(event);
  return events;
}

async function outcome(analysis: FaceAnalysis, photo: Uint8Array) {
  const events = await run(analysis, photo);
  const last = events.at(-1)!;
  assert.equal(events.filter((e) => e.kind !== 'progress').length, 1, 'exactly one final event');
  return last;
}

async function scores(analysis: FaceAnalysis, photo: Uint8Array) {
  const last = await outcome(analysis, photo);
  if (last.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(last)}`);
  return last.scores;
}

describe('face analysis on real photos', function () {
  this.timeout(60_000);
  let analysis: FaceAnalysis;
  let detector: FaceDetector;

  before(async () => {
    analysis = await Analysis.load();
    detector = await FaceDetector.load();
  });

  for (const name of ['a', 'b', 'c', 'd'] as FaceName[]) {
    it(`single face ${name}: every measure scored 0–100, stages in order`, async () => {
      const events = await run(analysis, await singleFace(name));
      assert.deepEqual(
        events.filter((e) => e.kind === 'progress').map((e) => (e.kind === 'progress' ? e.stage : '')),
        [...STAGES],
      );
      const last = events.at(-1)!;
      assert.equal(last.kind, 'result');
      if (last.kind !== 'result') return;
      assert.deepEqual(Object.keys(last.scores).sort(), [...MEASURES].sort());
      for (const score of Object.values(last.scores))
        assert.ok(Number.isInteger(score) && score >= 0 && score <= 100);
      assert.ok(last.concerns.length <= 6);
    });
  }

  for (const n of [1, 2, 3, 4, 5, 6] as const) {
    it(`group photo sample${n} → several_faces`, async () => {
      const last = await outcome(analysis, groupPhoto(n));
      assert.equal(last.kind === 'failure' && last.reason, 'several_faces');
    });
  }

  const failures: [string, () => Promise<Buffer>, string][] = [
    ['a landscape', landscape, 'no_face'],
    [
      'a darkened face',
      async () =>
        sharp(await singleFace('a'))
          .linear(0.2, 0)
          .jpeg()
          .toBuffer(),
      'too_dark',
    ],
    [
      'a blurred face',
      async () =>
        sharp(await singleFace('b'))
          .blur(5)
          .jpeg()
          .toBuffer(),
      'too_blurry',
    ],
    [
      'a burnt-out face',
      async () =>
        sharp(await singleFace('c'))
          .linear(2.2, 40)
          .jpeg()
          .toBuffer(),
      'overexposed',
    ],
    [
      'a face too far away (small in a 1250 px photo)',
      async () =>
        sharp(await singleFace('a'))
          .resize(250)
          .extend({ top: 500, bottom: 500, left: 500, right: 500, background: '#8a8f96' })
          .jpeg()
          .toBuffer(),
      'face_too_small',
    ],
    // The face fills the photo, but the photo has too few pixels: coming closer would not help.
    ...[250, 160, 32].map((side): [string, () => Promise<Buffer>, string] => [
      `a ${side} px copy of a face photo`,
      async () =>
        sharp(await singleFace('a'))
          .resize(side)
          .jpeg()
          .toBuffer(),
      'photo_too_small',
    ]),
    ...(['a', 'b', 'c', 'd'] as FaceName[]).map((name, i): [string, () => Promise<Buffer>, string] => {
      const edge = (['left', 'top', 'bottom', 'left'] as const)[i]!;
      return [
        `face ${name} cut off by the ${edge} edge of the photo`,
        async () => {
          const photo = await singleFace(name);
          const size = (await sharp(photo).metadata()).width!;
          const cut = Math.round(size * 0.35);
          const rest = size - cut;
          const region =
            edge === 'left'
              ? { left: cut, top: 0, width: rest, height: size }
              : edge === 'top'
                ? { left: 0, top: cut, width: size, height: rest }
                : { left: 0, top: 0, width: size, height: rest };
          return sharp(photo).extract(region).jpeg({ quality: 95 }).toBuffer();
        },
        'face_cut_off',
      ];
    }),
    ['a face seen three-quarters (real photo)', () => turnedFace('three_quarter'), 'face_turned'],
    ['a face looking aside (real photo)', () => turnedFace('looking_aside'), 'face_turned'],
    [
      'a head tilted 50°',
      async () =>
        sharp(await singleFace('b'))
          .rotate(50, { background: '#777' })
          .jpeg()
          .toBuffer(),
      'face_turned',
    ],
    ...(['a', 'c'] as FaceName[]).map((name): [string, () => Promise<Buffer>, string] => [
      `face ${name} in black and white`,
      async () =>
        sharp(await singleFace(name))
          .greyscale()
          .jpeg()
          .toBuffer(),
      'no_colour',
    ]),
    [
      'face d with its colour all but gone (a 95 % desaturating filter), as a PNG',
      async () =>
        sharp(await singleFace('d'))
          .modulate({ saturation: 0.05 })
          .png()
          .toBuffer(),
      'no_colour',
    ],
    ['bytes that are no image', async () => Buffer.from('this is not a photo'), 'not_an_image'],
    ['a 30000×30000 pixel bomb', async () => pixelBomb(), 'image_too_large'],
  ];
  for (const [title, make, reason] of failures) {
    it(`${title} → ${reason}`, async () => {
      const last = await outcome(analysis, await make());
      assert.equal(last.kind === 'failure' && last.reason, reason);
    });
  }

  it('honours EXIF orientation: a photo stored sideways with orientation 6 is measured upright', async () => {
    const upright = await singleFace('b');
    const sideways = await sharp(upright).rotate(-90).jpeg({ quality: 95 }).toBuffer();
    const tagged = await sharp(upright)
      .rotate(-90)
      .withMetadata({ orientation: 6 })
      .jpeg({ quality: 95 })
      .toBuffer();
    const untagged = await outcome(analysis, sideways);
    assert.equal(
      untagged.kind === 'failure' && untagged.reason,
      'face_turned',
      'without the tag the face lies on its side',
    );
    const measured = await scores(analysis, tagged);
    const reference = await scores(analysis, upright);
    for (const measure of MEASURES) assert.ok(Math.abs(measured[measure] - reference[measure]) <= 3, measure);
  });

  it('redness painted on both cheeks lowers redness by a clear margin (≥ 10 points)', async () => {
    const photo = await singleFace('b');
    const before = await scores(analysis, photo);
    const after = await scores(analysis, await addCheekRedness(photo, detector));
    assert.ok(before.redness - after.redness >= 10, `redness ${before.redness} → ${after.redness}`);
  });

  it('a few small dark spots on the cheeks lower dark_spots by a clear margin (≥ 10 points)', async () => {
    const photo = await singleFace('b');
    const before = await scores(analysis, photo);
    const after = await scores(analysis, await addDarkSpots(photo, detector));
    assert.ok(
      before.dark_spots - after.dark_spots >= 10,
      `dark_spots ${before.dark_spots} → ${after.dark_spots}`,
    );
  });

  it('analyses running at once on one instance answer as each does alone (buffers are lent, not shared)', async () => {
    // Faces (every model and the region patches) and a group photo (the back model too), each twice, so
    // that two analyses fill the same kind of buffer while the other's model has yet to read it.
    const photos = [
      ...(await Promise.all((['a', 'b', 'c', 'd'] as FaceName[]).map((name) => singleFace(name)))),
      groupPhoto(1),
    ];
    const alone = [];
    for (const photo of photos) alone.push(await run(analysis, photo));
    const together = await Promise.all([...photos, ...photos].map((photo) => run(analysis, photo)));
    assert.deepEqual(together, [...alone, ...alone]);
  });

  for (const name of ['a', 'b', 'c'] as FaceName[]) {
    it(`face ${name}: JPEG quality 80, resizing by 0.75 and mirroring move no score by more than 3`, async () => {
      const photo = await singleFace(name);
      const base = await scores(analysis, photo);
      for (const [label, variant] of Object.entries(await photoChanges(photo))) {
        const moved = await scores(analysis, variant);
        for (const measure of MEASURES) {
          const delta = Math.abs(moved[measure] - base[measure]);
          assert.ok(delta <= 3, `${label}: ${measure} ${base[measure]} → ${moved[measure]}`);
        }
      }
    });
  }

  // A lossless mirror (PNG, the very pixels reversed) is the same face: the detector and the landmarks see
  // each crop and its mirror, a mirrored photo's region patches are the mirrored patches, and the graph's
  // features are flip-invariant — so the scores are the same to float rounding (at most 1e-4 points apart
  // on these eleven faces; docs/inference.md, Stability). Before: the landmark crop lay a pixel off the mirror's (edge against pixel-centre
  // coordinates), the patch enlargement clamped one side short and redness judged its lightest tenth on
  // even columns only: redness up to 2.5 points apart, 0.81 with the crop alone.
  for (const name of ['a', 'b', 'c', 'd', ...Object.keys(MORE_FACES)] as (FaceName | MoreFaceName)[]) {
    it(`face ${name} as lossless PNG and its lossless mirror: the same scores`, async () => {
      const jpeg = /^[a-d]$/.test(name)
        ? await singleFace(name as FaceName)
        : await moreFace(name as MoreFaceName);
      const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
      const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
      const [photo, mirrored] = await Promise.all([
        outcome(analysis, await sharp(data, raw).png().toBuffer()),
        outcome(analysis, await sharp(data, raw).flop().png().toBuffer()),
      ]);
      // Face h, lit by a flash, has red at white on 40 % of its skin: both are refused alike.
      if (photo.kind === 'failure' && name === 'h') {
        assert.deepEqual(
          [photo.reason, mirrored.kind === 'failure' && mirrored.reason],
          ['overexposed', 'overexposed'],
        );
        return;
      }
      if (photo.kind !== 'result' || mirrored.kind !== 'result') throw new Error('expected two results');
      for (const measure of MEASURES) {
        const { good, bad } = CALIBRATION[measure];
        const points = (100 * (mirrored.raw[measure] - photo.raw[measure])) / (bad - good);
        const label: string = `${measure}: raw ${photo.raw[measure]} → ${mirrored.raw[measure]} (${points.toFixed(3)} points)`;
        assert.ok(Math.abs(points) <= 0.01, label);
        assert.equal(mirrored.scores[measure], photo.scores[measure], label);
      }
    });
  }

  // A photo already compressed once (quality 90), as most are, compressed again or made smaller: its grain
  // changes, and pores read only pits deeper than the grain (before skin-measures-14: 6–8 points at quality 80).
  for (const name of ['e', 'j', 'k'] as MoreFaceName[]) {
    it(`face ${name} saved at quality 90: quality 80 and resizing by 0.75 move pores by at most 3`, async () => {
      const photo = await sharp(await moreFace(name))
        .jpeg({ quality: 90 })
        .toBuffer();
      const base = await scores(analysis, photo);
      const { q80, resized } = await photoChanges(photo);
      for (const [label, variant] of Object.entries({ q80, resized })) {
        const moved = await scores(analysis, variant);
        assert.ok(Math.abs(moved.pores - base.pores) <= 3, `${label}: pores ${base.pores} → ${moved.pores}`);
      }
    });
  }
});

/** The photo at JPEG quality 80, made 0.75 times as wide, and mirrored (the last two at quality 95). */
async function photoChanges(photo: Buffer): Promise<Record<'q80' | 'resized' | 'mirrored', Buffer>> {
  const width = (await sharp(photo).metadata()).width!;
  return {
    q80: await sharp(photo).jpeg({ quality: 80 }).toBuffer(),
    resized: await sharp(photo)
      .resize(Math.round(width * 0.75))
      .jpeg({ quality: 95 })
      .toBuffer(),
    mirrored: await sharp(photo).flop().jpeg({ quality: 95 }).toBuffer(),
  };
}
