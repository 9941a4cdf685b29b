// The upload page's photo handling (imported by scan-page.js): the photo made upright and smaller in the
// browser, then sent with its progress. A send that stops moving is given up on rather than left on screen
// for ever: a phone whose network froze mid-upload shows no error of its own, the request just waits (until
// the server's own request timeout, minutes later).

import { orientationToApply, uprightTransform } from './photo-orientation.js';

const MAX_EDGE = 2048;
const JPEG_QUALITY = 0.9;
/**
 * How long a send may go without progress before it is given up on: no byte of the photo accepted by the
 * network, or, once all of it is, no answer (the server checks a photo in well under a second).
 */
export const STALL_MS = 25_000;

/**
 * The photo upright (its orientation applied, by the browser or by photo-orientation.js where the browser
 * does not), at most MAX_EDGE px on its longest edge, as a JPEG with no metadata.
 */
export async function preparePhoto(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return null; // not an image this browser can read
  }
  const orientation = await orientationToApply(file);
  const scale = Math.min(1, MAX_EDGE / Math.max(bitmap.width, bitmap.height));
  const width = Math.round(bitmap.width * scale);
  const height = Math.round(bitmap.height * scale);
  const turned = orientation >= 5;
  const canvas = document.createElement('canvas');
  canvas.width = turned ? height : width;
  canvas.height = turned ? width : height;
  const context = canvas.getContext('2d');
  context.setTransform(...uprightTransform(orientation, width, height));
  context.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', JPEG_QUALITY));
}

/** A HEIC/HEIF photo (an iPhone's own format), which only some browsers can open: by its type or its name. */
export function isHeic(file) {
  return /^image\/hei[cf]/i.test(file.type) || /\.hei[cf]$/i.test(file.name);
}

/** While a photo is sent, leaving the page (back, reload, closing the tab) would drop it: the browser asks. */
const askBeforeLeaving = (event) => event.preventDefault();

/**
 * Sends the photo to `url`. `done` settles once with `{status, body}`, `status` 0 when no answer came:
 * `stalled` when it stopped moving for STALL_MS, `cancelled` when `cancel()` stopped it.
 */
export function sendPhoto(url, blob, onProgress) {
  const request = new XMLHttpRequest();
  let timer;
  let settle;
  const done = new Promise((resolve) => {
    settle = (result) => {
      clearTimeout(timer);
      window.removeEventListener('beforeunload', askBeforeLeaving);
      resolve(result);
    };
  });
  window.addEventListener('beforeunload', askBeforeLeaving);
  const stop = (why) => {
    settle({ status: 0, body: null, [why]: true });
    request.abort();
  };
  const moving = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stop('stalled'), STALL_MS);
  };
  request.open('POST', url);
  request.setRequestHeader('content-type', blob.type || 'application/octet-stream');
  request.upload.addEventListener('progress', (e) => {
    moving();
    if (e.lengthComputable) onProgress(Math.round((e.loaded / e.total) * 100));
  });
  // All of it handed to the network: the answer is due within the same bound.
  request.upload.addEventListener('load', moving);
  request.addEventListener('load', () => {
    let body = null;
    try {
      body = JSON.parse(request.responseText);
    } catch {}
    settle({ status: request.status, body });
  });
  request.addEventListener('error', () => settle({ status: 0, body: null }));
  request.addEventListener('abort', () => settle({ status: 0, body: null, cancelled: true }));
  moving();
  request.send(blob);
  return { done, cancel: () => stop('cancelled') };
}
