import type { z } from 'zod';

type Plain = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Plain {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** `stored` over `defaults`, object by object, so a stored nested object missing newer keys gets their defaults. */
export function deepMerge(defaults: unknown, stored: unknown): unknown {
  if (!isPlainObject(defaults) || !isPlainObject(stored)) return stored === undefined ? defaults : stored;
  const merged: Plain = { ...defaults };
  for (const [key, value] of Object.entries(stored)) merged[key] = deepMerge(defaults[key], value);
  return merged;
}

/**
 * The settings a stored value stands for. A value written under an older schema that the
 * current one rejects must not stop the service: each stored key that is still valid on its
 * own is kept, the others fall back to their defaults.
 */
export function resolveStored<T>(schema: z.ZodType<T>, defaults: T, stored: unknown): T {
  const whole = schema.safeParse(deepMerge(defaults, stored));
  if (whole.success) return whole.data;
  let result = defaults;
  if (!isPlainObject(stored)) return result;
  for (const [key, value] of Object.entries(stored)) {
    const attempt = schema.safeParse(deepMerge(result, { [key]: value }));
    if (attempt.success) result = attempt.data;
  }
  return result;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
