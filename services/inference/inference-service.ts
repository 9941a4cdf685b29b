/** InferenceService: FaceAnalysis's stream as protobuf messages. */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type HandlerContext, type ServiceImpl } from '@connectrpc/connect';
import {
  type AnalyzeFaceRequest,
  type AnalyzeFaceResponse,
  AnalyzeFaceResponseSchema,
  type ImageQuality,
  ImageQualitySchema,
  type InferenceService,
  Stage,
} from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { FAILURE_MESSAGES } from '../shared/failure-messages.ts';
import { analysisDuration, analysisStageDuration, secondsSince } from '../shared/metrics.ts';
import type { AnalyzeOptions, FaceAnalysis, FaceAnalysisEvent, StageName } from './face-analysis.ts';
import { WorkProgress } from './liveness.ts';
import type { Quality } from './quality.ts';

const STAGE: Record<StageName, Stage> = {
  decoding: Stage.DECODING,
  detecting_face: Stage.DETECTING_FACE,
  checking_quality: Stage.CHECKING_QUALITY,
  measuring: Stage.MEASURING,
  scoring: Stage.SCORING,
};

export class InferenceServiceImpl implements ServiceImpl<typeof InferenceService> {
  readonly #analysis: FaceAnalysis;
  readonly #progress: WorkProgress;

  /** `progress` is told of each stage's work, so health can tell busy from stuck (liveness.ts). */
  constructor(analysis: FaceAnalysis, progress = new WorkProgress()) {
    this.#analysis = analysis;
    this.#progress = progress;
  }

  /** Ends when its client cancels (context.signal): nobody reads the rest of the analysis. */
  async *analyzeFace(req: AnalyzeFaceRequest, context: HandlerContext): AsyncGenerator<AnalyzeFaceResponse> {
    const options = { skipQualityGates: req.options?.skipQualityGates ?? false, signal: context.signal };
    const started = performance.now();
    let stage: { name: StageName; started: number } | undefined;
    const stageEnds = () => {
      if (stage) analysisStageDuration.observe({ stage: stage.name }, secondsSince(stage.started));
      stage = undefined;
    };
    let outcome = 'error';
    try {
      yield* this.#stream(req, options, (event) => {
        if (event.kind === 'progress') {
          if (stage?.name === event.stage) return;
          stageEnds();
          stage = { name: event.stage, started: performance.now() };
        } else {
          stageEnds();
          outcome = event.kind === 'result' ? 'complete' : 'failed';
        }
      });
    } catch (err) {
      // Its client went away (a reset, a closed connection): the call ends as Canceled, not as a failure.
      if (context.signal.aborted) throw ConnectError.from(context.signal.reason, Code.Canceled);
      throw err;
    } finally {
      analysisDuration.observe({ outcome }, secondsSince(started));
    }
  }

  async *#stream(
    req: AnalyzeFaceRequest,
    options: AnalyzeOptions,
    seen: (event: FaceAnalysisEvent) => void,
  ): AsyncGenerator<AnalyzeFaceResponse> {
    for await (const event of this.#progress.steps(this.#analysis.analyze(req.image, options))) {
      seen(event);
      if (event.kind === 'progress') {
        yield create(AnalyzeFaceResponseSchema, {
          event: { case: 'progress', value: { stage: STAGE[event.stage], percent: event.percent } },
        });
      } else if (event.kind === 'result') {
        yield create(AnalyzeFaceResponseSchema, {
          event: {
            case: 'result',
            value: {
              scores: Object.entries(event.scores).map(([measure, score]) => ({
                measure,
                score,
                raw: event.raw[measure as keyof typeof event.raw],
              })),
              concerns: [...event.concerns],
              quality: qualityMessage(event.quality),
              models: Object.entries(this.#analysis.versions).map(([name, version]) => ({ name, version })),
            },
          },
        });
      } else {
        yield create(AnalyzeFaceResponseSchema, {
          event: {
            case: 'failure',
            value: {
              reason: event.reason,
              message: FAILURE_MESSAGES[event.reason],
              quality: event.quality ? qualityMessage(event.quality) : undefined,
            },
          },
        });
      }
    }
  }
}

function qualityMessage(q: Quality): ImageQuality {
  return create(ImageQualitySchema, {
    width: q.width,
    height: q.height,
    faceConfidence: q.faceConfidence,
    faceWidthFraction: q.faceWidthFraction,
    yaw: q.yaw,
    brightness: q.brightness,
    clippedFraction: q.clippedFraction,
    sharpness: q.sharpness,
    colourfulness: q.colourfulness,
    faces: q.faces,
  });
}
