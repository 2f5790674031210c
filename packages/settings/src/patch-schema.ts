import { z } from 'zod';

/** Settings with every key optional at every depth (arrays are replaced whole). */
export type SettingsPatch<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T]?: SettingsPatch<T[K]> }
    : T;

/**
 * The schema of an update body: every key optional at every depth and no defaults, so the
 * parsed patch holds only what the request named. (`schema.partial()` would not do: zod 4
 * fills the defaults of missing keys, and the update would reset them.) The full schema still
 * validates the merged result in `update`.
 */
export function settingsPatchSchema<T>(schema: z.ZodType<T>): z.ZodType<SettingsPatch<T>> {
  return patchOf(schema) as z.ZodType<SettingsPatch<T>>;
}

function patchOf(schema: z.ZodType): z.ZodType {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (!(inner instanceof z.ZodObject)) return inner;
  const shape = Object.fromEntries(
    Object.entries(inner.shape as Record<string, z.ZodType>).map(([key, field]) => [key, patchOf(field).optional()]),
  );
  return z.object(shape);
}
