import { defineErrorCodes } from '@app/http';

/**
 * The license service's error answers by a stable code, on top of the shared ones of `@app/http`:
 * the HTTP status and the text the specification gives each. Add a code here rather than
 * writing a status where the error is thrown.
 */
export const { errorCodes, appError } = defineErrorCodes({
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
  // Offline files of floating licenses borrow a seat (decisions, wave 4): borrowHours 0 gives none.
  BORROWING_NOT_ALLOWED: { status: 400, message: 'Borrowing not allowed' },
  BORROW_HOURS_TOO_LONG: { status: 400, message: 'Borrowing period too long' },
  LICENSE_FILE_NOT_BOUND: {
    status: 400,
    message: 'This license has floating seats: a file must be bound to a machine that holds a seat (fingerprint)',
  },
  // Air-gapped activation: a request code that cannot be read, or names another license's key.
  ACTIVATION_REQUEST_INVALID: { status: 400, message: 'Activation request code is not valid' },
  ACTIVATION_REQUEST_OTHER_LICENSE: { status: 400, message: 'Activation request code is for another license' },
  // Validation asked for a code the license does not grant (`details.missing` names them).
  ENTITLEMENT_MISSING: { status: 403, message: 'Entitlement missing' },
  ENTITLEMENT_NOT_FOUND: { status: 404, message: 'Entitlement not found' },
  ENTITLEMENT_EXISTS: { status: 409, message: 'Entitlement already exists' },
  ENTITLEMENT_IN_USE: { status: 409, message: 'Entitlement in use' },
  // Software releases and their artifacts (decisions.md, wave 4, "releases and update feeds").
  RELEASE_NOT_FOUND: { status: 404, message: 'Release not found' },
  RELEASE_EXISTS: { status: 409, message: 'Release already exists' },
  ARTIFACTS_MISSING: { status: 409, message: 'Artifacts missing' },
  RELEASE_NOT_DRAFT: { status: 409, message: 'Release is not a draft' },
  RELEASE_NOT_PUBLISHED: { status: 409, message: 'Release is not published' },
  RELEASE_PUBLISHED: { status: 409, message: 'Release is published: yank it before deleting it' },
  ARTIFACT_NOT_FOUND: { status: 404, message: 'Artifact not found' },
  ARTIFACT_EXISTS: { status: 409, message: 'Artifact already exists' },
  ARTIFACT_NOT_UPLOADED: { status: 409, message: 'Artifact not uploaded' },
  ARTIFACT_MISMATCH: { status: 400, message: "Upload does not match the artifact's size or SHA-256" },
  DOWNLOAD_LINK_INVALID: { status: 403, message: 'Invalid or altered link' },
  DOWNLOAD_LINK_EXPIRED: { status: 403, message: 'This link has expired' },
  LICENSE_KEY_REQUIRED: { status: 401, message: 'License key is required (Authorization: License KEY)' },
  POLICY_NOT_FOUND: { status: 404, message: 'Policy not found' },
  POLICY_IN_USE: { status: 409, message: 'Policy in use' },
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
  TWO_FACTOR_SETUP_NOT_STARTED: {
    status: 400,
    message: 'Two-factor setup has not been started: call GET /api/2fa/setup first',
  },
  TWO_FACTOR_INVALID_TOKEN: { status: 400, message: 'Invalid token' },
  TWO_FACTOR_INVALID_CODE: { status: 400, message: 'Invalid token or backup code' },
  TWO_FACTOR_PASSWORD_REQUIRED: { status: 400, message: 'Password is required to disable two-factor authentication' },
  TWO_FACTOR_INVALID_PASSWORD: { status: 403, message: 'Invalid password' },
  TWO_FACTOR_VERIFICATION_REQUIRED: { status: 403, message: 'Two-factor verification required' },
  TWO_FACTOR_REQUIRED_BY_CONFIG: {
    status: 403,
    message: 'Two-factor authentication is required by the configuration and cannot be disabled',
  },
  // The admin console's settings: admins and API tokens.
  ADMIN_NOT_FOUND: { status: 404, message: 'Admin not found' },
  ADMIN_ALREADY_EXISTS: { status: 409, message: 'This user is already an admin' },
  LAST_ADMIN: { status: 409, message: 'The last admin cannot be removed: add another admin first' },
  LAST_ADMIN_SELF: {
    status: 409,
    message: 'You are the last admin and cannot remove yourself: add another admin first',
  },
  API_TOKEN_NOT_FOUND: { status: 404, message: 'API token not found' },
  // 501: this deployment does not offer the function, and asking again will not change that
  // (503 would invite retries). The message names the variables that turn it on.
  JWT_NOT_CONFIGURED: {
    status: 501,
    message: 'JWT is not configured: set JWT_SECRET (HS256), or JWT_PUBLIC_KEY with JWT_PRIVATE_KEY (RS256 or EdDSA)',
  },
  JWT_ISSUING_NOT_CONFIGURED: {
    status: 501,
    message:
      'JWT issuing is not configured: this service only verifies tokens with JWT_PUBLIC_KEY; set JWT_PRIVATE_KEY (its private key) to issue them here',
  },
});

export type LicenseErrorCode = keyof typeof errorCodes;
