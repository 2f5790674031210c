import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { HttpError } from './http-error.js';
import { readableIssue } from './readable-issue.js';

export { readableIssue };

/**
 * `{ field: message }` from a zod error: the first message for each field. Parse with
 * `{ error: readableIssue }` (as `parseInput` does) so the messages are written for people.
 */
export function validationDetails(error: z.ZodError): Record<string, string> {
  const details: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.map(String).join('.') || '_root';
    details[field] ??= issue.message;
  }
  return details;
}

/** The path of the first string that holds a NUL character, which PostgreSQL text cannot store. */
function pathOfNul(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || '_root' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = pathOfNul(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Parses input with a schema, or throws 400 `Validation failed` with the details. Strings with a
 * NUL character are refused here too: the database would refuse them later, as a 500.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // Messages a schema sets itself win over readableIssue (zod's order), so spec texts stay as written.
  const result = schema.safeParse(input ?? {}, { error: readableIssue });
  if (!result.success) throw HttpError.badRequest('Validation failed', validationDetails(result.error));
  const nulAt = pathOfNul(result.data);
  if (nulAt) throw HttpError.badRequest('Validation failed', { [nulAt]: 'Must not contain NUL characters' });
  return result.data;
}

type Schemas = { body?: z.ZodType; query?: z.ZodType; params?: z.ZodType };

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The parsed input of `validate(...)`: read it with the schema's inferred type. */
      valid: { body?: unknown; query?: unknown; params?: unknown };
    }
  }
}

/**
 * Validates the request's body, query and params against zod schemas before the handler runs.
 * The parsed values are at `req.valid` (Express 5's `req.query` cannot be replaced).
 */
export function validate(schemas: Schemas): RequestHandler {
  return (req, _res, next) => {
    req.valid = {
      body: schemas.body ? parseInput(schemas.body, req.body) : undefined,
      query: schemas.query ? parseInput(schemas.query, req.query) : undefined,
      params: schemas.params ? parseInput(schemas.params, req.params) : undefined,
    };
    next();
  };
}
