import { defineErrorCodes } from '@app/http';

/**
 * The paste service's error answers by a stable code, on top of the shared ones of `@app/http`:
 * the HTTP status and the text the specification gives each. Add a code here rather than
 * writing a status where the error is thrown.
 */
export const { errorCodes, appError } = defineErrorCodes({
  PASTE_NOT_FOUND: { status: 404, message: 'Paste not found' },
  PASTE_EXPIRED: { status: 410, message: 'Paste expired' },
  /** GET of the raw view of a reveal-on-click paste: only the button's POST shows it. */
  PASTE_REVEAL_REQUIRED: { status: 405, message: 'This paste is shown only on request: POST to its address' },
  PASTE_CONTENT_EMPTY: { status: 400, message: 'Content cannot be empty' },
  PASTE_CONTENT_TOO_LONG: { status: 400, message: 'Content exceeds the maximum size' },
  PASTE_NO_FREE_SLUG: {
    status: 503,
    message: 'Could not find a free slug; raise slugLength or choose a larger character set',
  },
  PASTE_PASSWORD_REQUIRED: { status: 400, message: 'Password is required' },
  PASTE_PASSWORD_INCORRECT: { status: 401, message: 'Incorrect password' },
  PASTE_TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many attempts' },
  PASTE_WRONG_KEY: { status: 403, message: 'Wrong key' },
  PASTE_INVALID_DELETE_TOKEN: { status: 403, message: 'Invalid delete token' },
  PASTE_ATTACHMENTS_TOO_LARGE: { status: 413, message: 'Attachments too large' },
  PASTE_ATTACHMENTS_MISSING: { status: 409, message: 'Attachments not uploaded' },
  PASTE_STORAGE_UNAVAILABLE: { status: 503, message: 'File storage is unavailable, try again later' },
  PASTE_API_DISABLED: { status: 403, message: 'API access is disabled' },
  PASTE_API_KEY_REQUIRED: { status: 401, message: 'API key required' },
  PASTE_API_KEY_INVALID: { status: 401, message: 'Invalid API key' },
  PASTE_API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  PASTE_API_KEY_TAKEN: { status: 409, message: 'An API key with this value already exists' },
  PASTE_FILE_TOO_LARGE: { status: 400, message: 'File too large (maximum 2 MB)' },
  PASTE_FILE_EMPTY: { status: 400, message: 'File is empty' },
  PASTE_UPLOAD_INVALID: { status: 400, message: 'Malformed multipart body' },
  // The message names the form field the file belongs in.
  PASTE_NO_FILE_UPLOADED: { status: 400, message: 'No file uploaded' },
  PASTE_INVALID_FILE_TYPE: {
    status: 400,
    message: 'Invalid file type: allowed formats are JPEG, PNG, GIF, SVG and ICO',
  },
});

export type PasteErrorCode = keyof typeof errorCodes;
