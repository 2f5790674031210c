import { HttpError } from './http-error.js';

/**
 * Every error answer of both services, by a stable code: its HTTP status and the text the
 * specifications give it. This is the one place that decides a status; services throw
 * `appError('PASTE_NOT_FOUND')` and the error handler renders it as JSON, HTML or text.
 * Add a code here (in its section) rather than writing a status where the error is thrown.
 */
export const errorCodes = {
  // Shared by both services.
  VALIDATION_FAILED: { status: 400, message: 'Validation failed' },
  INVALID_JSON: { status: 400, message: 'Invalid JSON body' },
  UNAUTHORIZED: { status: 401, message: 'Unauthorized' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  INVALID_CSRF_TOKEN: { status: 403, message: 'Invalid CSRF token' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  CONFLICT: { status: 409, message: 'Conflict: this value is already taken' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests, please try again later' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable, please retry' },
  BODY_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_ENCODING: { status: 415, message: 'Unsupported request encoding' },
  REQUEST_ABORTED: { status: 400, message: 'Request aborted' },
  INVALID_CHARACTERS: { status: 400, message: 'Invalid characters in input' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  // The message names the callback URL and the OAUTH_* variables to set (`signInSetupHint`).
  SIGN_IN_NOT_CONFIGURED: { status: 503, message: 'Sign-in is not configured: set the OAUTH_* variables' },

  // Paste service.
  PASTE_NOT_FOUND: { status: 404, message: 'Paste not found' },
  PASTE_EXPIRED: { status: 410, message: 'Paste expired' },
  /** GET of the raw view of a reveal-on-click paste: only the button's POST shows it. */
  PASTE_REVEAL_REQUIRED: { status: 405, message: 'This paste is shown only on request: POST to its address' },
  PASTE_CONTENT_EMPTY: { status: 400, message: 'Content cannot be empty' },
  PASTE_CONTENT_TOO_LONG: { status: 400, message: 'Content exceeds the maximum size' },
  PASTE_NO_FREE_SLUG: { status: 503, message: 'Could not find a free slug; raise slugLength or choose a larger character set' },
  PASTE_PASSWORD_REQUIRED: { status: 400, message: 'Password is required' },
  PASTE_PASSWORD_INCORRECT: { status: 401, message: 'Incorrect password' },
  PASTE_TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many attempts' },
  PASTE_INVALID_DELETE_TOKEN: { status: 403, message: 'Invalid delete token' },
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
  PASTE_INVALID_FILE_TYPE: { status: 400, message: 'Invalid file type: allowed formats are JPEG, PNG, GIF, SVG and ICO' },

  // License service.
  LICENSE_NOT_FOUND: { status: 404, message: 'License not found' },
  LICENSE_VALIDATION_NOT_FOUND: { status: 400, message: 'License not found' },
  LICENSE_EXPIRED: { status: 403, message: 'License expired' },
  LICENSE_SUSPENDED: { status: 403, message: 'License suspended' },
  LICENSE_REVOKED: { status: 403, message: 'License revoked' },
  LICENSE_NOT_ACTIVE: { status: 403, message: 'License not active' },
  LICENSE_IP_LIMIT: { status: 403, message: 'IP limit exceeded' },
  LICENSE_HWID_LIMIT: { status: 403, message: 'HWID limit exceeded' },
  LICENSE_NO_CREDITS: { status: 403, message: 'No credits remaining' },
  LICENSE_KEY_TAKEN: { status: 409, message: 'A license with this key already exists' },
  LICENSE_REVOKED_NOT_REACTIVATED: { status: 400, message: 'License is revoked and cannot be reactivated' },
  LICENSE_NOT_CONSUMPTION: { status: 400, message: 'License is not a consumption-based license' },
  MASTER_LICENSE_NOT_FOUND: { status: 404, message: 'Master license not found' },
  // A customer's release of an IP or hardware id the license has not recorded.
  LICENSE_BINDING_NOT_IN_USE: { status: 404, message: 'Not in use' },
  LICENSE_RELEASE_LIMIT_REACHED: { status: 429, message: 'Release limit reached' },
  // A fingerprint that holds no seat of the license (never activated, deactivated, or its lease ran out).
  MACHINE_NOT_FOUND: { status: 404, message: 'Machine not found' },
  PRODUCT_NOT_FOUND: { status: 404, message: 'Product not found' },
  PRODUCT_NOT_ACTIVE: { status: 400, message: 'Product is not active' },
  PRODUCT_HAS_LICENSES: { status: 400, message: 'Product has licenses and cannot be deleted' },
  CUSTOMER_NOT_FOUND: { status: 404, message: 'Customer not found' },
  CUSTOMER_USER_ID_TAKEN: { status: 409, message: 'A customer with this userId already exists' },
  NO_CUSTOMER_ACCOUNT: { status: 403, message: 'No customer account for this user' },
  PANIC_MODE: { status: 503, message: 'Service unavailable: panic mode is active' },
  WEBHOOK_URL_NOT_ALLOWED: { status: 400, message: 'Webhook URL not allowed' },
  SMTP_HOST_NOT_ALLOWED: { status: 400, message: 'SMTP host not allowed' },
  DELIVERY_NOT_FOUND: { status: 404, message: 'Delivery not found' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'Webhook endpoint not found' },
  DELIVERY_PENDING: { status: 409, message: 'Delivery is already pending' },
  AUTOMATION_NOT_FOUND: { status: 404, message: 'Automated action not found' },
  AUDIT_LOG_NOT_FOUND: { status: 404, message: 'Audit log not found' },
  STRIPE_NOT_CONFIGURED: { status: 503, message: 'Stripe webhooks are not configured' },
  STRIPE_INVALID_SIGNATURE: { status: 400, message: 'Invalid Stripe signature' },
  STRIPE_RAW_BODY_EXPECTED: { status: 400, message: 'Expected the raw request body' },
  TWO_FACTOR_ALREADY_ENABLED: { status: 400, message: 'Two-factor authentication is already enabled' },
  TWO_FACTOR_SETUP_NOT_STARTED: { status: 400, message: 'Two-factor setup has not been started: call GET /api/2fa/setup first' },
  TWO_FACTOR_INVALID_TOKEN: { status: 400, message: 'Invalid token' },
  TWO_FACTOR_INVALID_CODE: { status: 400, message: 'Invalid token or backup code' },
  TWO_FACTOR_PASSWORD_REQUIRED: { status: 400, message: 'Password is required to disable two-factor authentication' },
  TWO_FACTOR_INVALID_PASSWORD: { status: 403, message: 'Invalid password' },
  TWO_FACTOR_VERIFICATION_REQUIRED: { status: 403, message: 'Two-factor verification required' },
  TWO_FACTOR_REQUIRED_BY_CONFIG: { status: 403, message: 'Two-factor authentication is required by the configuration and cannot be disabled' },
  // The admin console's settings: admins and API tokens.
  ADMIN_NOT_FOUND: { status: 404, message: 'Admin not found' },
  ADMIN_ALREADY_EXISTS: { status: 409, message: 'This user is already an admin' },
  LAST_ADMIN: { status: 409, message: 'The last admin cannot be removed: add another admin first' },
  LAST_ADMIN_SELF: { status: 409, message: 'You are the last admin and cannot remove yourself: add another admin first' },
  API_TOKEN_NOT_FOUND: { status: 404, message: 'API token not found' },
  // 501: this deployment does not offer the function, and asking again will not change that
  // (503 would invite retries). The message names the variables that turn it on.
  JWT_NOT_CONFIGURED: { status: 501, message: 'JWT is not configured: set JWT_SECRET (HS256), or JWT_PUBLIC_KEY with JWT_PRIVATE_KEY (RS256 or EdDSA)' },
  JWT_ISSUING_NOT_CONFIGURED: { status: 501, message: 'JWT issuing is not configured: this service only verifies tokens with JWT_PUBLIC_KEY; set JWT_PRIVATE_KEY (its private key) to issue them here' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * The error of a code, ready to throw. `message` replaces the catalogue's text only where the
 * text carries a value (`Content exceeds maximum size of 2 MB`); `details` and `extra` as HttpError.
 */
export function appError(code: ErrorCode, options: { message?: string; details?: Record<string, string>; extra?: Record<string, unknown> } = {}): HttpError {
  const { status, message } = errorCodes[code];
  return new HttpError(status, options.message ?? message, options.details, options.extra, code);
}
