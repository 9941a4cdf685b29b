/**
 * Why a photo could not be analysed, in words the person can act on: inference sends them with each
 * failure, and the upload page shows them. Here rather than in services/inference/ so that the façade can
 * read them without loading inference's code (and with it onnxruntime).
 */
export const FAILURE_MESSAGES = {
  not_an_image: 'The file is not a photo the service can read. Upload a JPEG or PNG photo.',
  image_too_large: 'The photo has more pixels than the service accepts. Upload a smaller photo.',
  no_face: 'No face was found. Take a photo of your face, looking at the camera.',
  several_faces: 'More than one face is in the photo. Take a photo of your face alone.',
  face_cut_off:
    'Part of the face is outside the photo. Move back or centre your face so that all of it, from forehead to chin, is in the picture.',
  photo_too_small:
    'The photo is too small: it has too few pixels to see the skin. Send it at its full size, not a thumbnail or a copy an app made smaller.',
  face_too_small:
    'The face is too small in the photo. Come closer to the camera, or crop the photo around your face.',
  face_turned:
    'The face is turned, tilted or upside down. Hold the phone upright and level, look straight at the camera and keep your head straight.',
  too_dark: 'The photo is too dark. Face a window or a lamp.',
  overexposed: 'The photo is too bright. Avoid direct sunlight or flash on your face.',
  too_blurry: 'The photo is blurred. Hold the camera still and let it focus.',
  no_colour: 'The photo is in black and white. Take a colour photo, with no filter.',
} as const;

export type FailureReason = keyof typeof FAILURE_MESSAGES;

/** The failure core records itself when analysis could not run at all, after its last attempt. */
export const ANALYSIS_UNAVAILABLE = 'analysis_unavailable';
/**
 * The failure core records when a core died while analysing the photo, several times over (a photo that
 * makes the process run out of memory or abort): the same photo would do it again, another one may not.
 */
export const PHOTO_UNPROCESSABLE = 'photo_unprocessable';
