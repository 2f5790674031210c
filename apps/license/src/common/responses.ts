import type { ResponseDeclaration } from '@app/http';

/** The answers every admin route may give besides its own (documentation only). */
export const adminFailures: Record<number, ResponseDeclaration> = {
  401: { description: 'Not signed in, or the bearer token is invalid' },
  403: { description: 'Not an admin, a missing CSRF token, or two-factor verification pending' },
};

export const validationFailure: Record<number, ResponseDeclaration> = {
  400: { description: 'Validation failed (details by field)' },
};

export const notFound = (what: string): Record<number, ResponseDeclaration> => ({ 404: { description: `${what} not found` } });
