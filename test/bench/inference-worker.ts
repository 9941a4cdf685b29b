/** A worker thread for bench:inference: analyses the photos it is sent, one at a time. */
import { parentPort } from 'node:worker_threads';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';

const analysis = await FaceAnalysis.load();
parentPort!.on('message', async (photo: Uint8Array) => {
  let last = '';
  for await (const event of analysis.analyze(photo)) last = event.kind;
  parentPort!.postMessage(last);
});
parentPort!.postMessage('ready');
