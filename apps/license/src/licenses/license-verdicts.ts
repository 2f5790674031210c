import type { LicenseErrorCode } from '../common/error-codes.js';

/**
 * The verdicts of the license rules in SQL and their error codes, same texts: the state verdict
 * (license-state.sql), and validation's and the seat rule's own (validate-batch.sql,
 * machine-seat.sql). Validation, machines and offline files turn a verdict into its error here.
 */
export const verdictCodes: Record<string, LicenseErrorCode> = {
  'License revoked': 'LICENSE_REVOKED',
  'License suspended': 'LICENSE_SUSPENDED',
  'License not active': 'LICENSE_NOT_ACTIVE',
  'License expired': 'LICENSE_EXPIRED',
  'No credits remaining': 'LICENSE_NO_CREDITS',
  'IP limit exceeded': 'LICENSE_IP_LIMIT',
  'HWID limit exceeded': 'LICENSE_HWID_LIMIT',
  'Entitlement missing': 'ENTITLEMENT_MISSING',
};
