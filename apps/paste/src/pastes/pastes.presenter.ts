import type { z } from 'zod';
import type { successSchema } from '../common/responses.js';
import type { clearedPastesSchema, createdPasteSchema } from './pastes.schema.js';
import type { CreatedPaste } from './pastes.service.js';

// The JSON answers of the paste routes, made from what the service returns: pure functions, so a
// field's name or format is decided here once, and the types hold them to the declared schemas.

/** `POST /api/paste`: the new paste's links and its delete token (answered this once). */
export function createdPasteAnswer(created: CreatedPaste): z.infer<typeof createdPasteSchema> {
  return {
    success: true,
    slug: created.slug,
    url: created.url,
    deleteToken: created.deleteToken,
    deleteUrl: created.deleteUrl,
    expiresAt: created.expiresAt?.toISOString() ?? null,
    title: created.title,
    language: created.language,
    ...(created.attachments ? { attachments: created.attachments } : {}),
  };
}

/** `POST /api/admin/clear-pastes`: how many pastes were deleted, in words and as a number. */
export function clearedPastesAnswer(deletedCount: number): z.infer<typeof clearedPastesSchema> {
  return {
    success: true,
    message: `Cleared ${deletedCount} ${deletedCount === 1 ? 'paste' : 'pastes'}`,
    deletedCount,
  };
}

/** `POST /paste/:slug/verify` from a program: the session may now read the paste. */
export function unlockedAnswer(): z.infer<typeof successSchema> {
  return { success: true };
}
