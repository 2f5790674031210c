import type { RequestHandler } from 'express';
import type { z } from 'zod';
import { appError } from './error-codes.js';
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

/** Lone UTF-16 surrogates: not text at all, and a JSON column refuses them (`\ud800`). */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored as text (PostgreSQL text and jsonb), or undefined when it can. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'Must not contain NUL characters';
  if (loneSurrogate.test(text)) return 'Must not contain unpaired surrogate characters';
  return undefined;
}

/**
 * The first string, object key included (free-form objects such as license metadata are stored
 * as jsonb), that the database cannot store: its path and why.
 */
function pathOfBadText(value: unknown, path: string[] = []): { path: string; problem: string } | undefined {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { path: pathText(path), problem } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const isArray = Array.isArray(value);
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const keyProblem = isArray ? undefined : textProblem(key);
    if (keyProblem)
      return { path: pathText(path), problem: `Keys: ${keyProblem.charAt(0).toLowerCase()}${keyProblem.slice(1)}` };
    // The path grows and shrinks in place: a body of many fields makes no array per field.
    path.push(key);
    const found = pathOfBadText((value as Record<string, unknown>)[key], path);
    path.pop();
    if (found) return found;
  }
  return undefined;
}

const pathText = (path: readonly string[]) => path.join('.') || '_root';

/**
 * Parses input with a schema, or throws 400 `Validation failed` with the details. Text the
 * database cannot store (a NUL character, an unpaired surrogate, in a value or a key) is refused
 * here too: the database would refuse it later, as a 500.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  // Messages a schema sets itself win over readableIssue (zod's order), so spec texts stay as written.
  const result = schema.safeParse(input ?? {}, { error: readableIssue });
  if (!result.success) throw appError('VALIDATION_FAILED', { details: validationDetails(result.error) });
  const bad = pathOfBadText(result.data);
  if (bad) throw appError('VALIDATION_FAILED', { details: { [bad.path]: bad.problem } });
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
