import bcrypt from 'bcrypt';
import { HttpError } from '@app/http';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import type { PasteRepository, ViewedPaste } from './paste.repository.js';
import type { CreatePasteInput } from './paste.schema.js';
import { generateSlug, type RandomInt } from './slug.js';

const MB = 1024 * 1024;
/** Slugs are drawn again on a collision; with the smallest space (4 digits) a few tries suffice until it is nearly full. */
const SLUG_ATTEMPTS = 20;

export interface PasteServiceDeps {
  repository: PasteRepository;
  settings: SettingsStore<PasteSettings>;
  randomInt: RandomInt;
  bcryptRounds: number;
}

export type ViewResult = { kind: 'shown'; paste: ViewedPaste } | { kind: 'locked'; slug: string };

export function formatMegabytes(value: number): string {
  return String(Number(value.toFixed(2)));
}

export function createPasteService(deps: PasteServiceDeps) {
  const { repository, settings } = deps;

  return {
    /** Stores a paste; `viaApi` counts it in apiUsage. */
    async create(input: CreatePasteInput, viaApi: boolean): Promise<{ slug: string; url: string }> {
      const { content } = input;
      if (content === undefined || content.trim() === '') throw HttpError.badRequest('Content cannot be empty');
      const { maxPasteSize, slugLength, slugCharacterSet } = settings.get();
      if (Buffer.byteLength(content, 'utf8') > maxPasteSize * MB) throw tooLong(maxPasteSize);

      const passwordHash = input.password ? await bcrypt.hash(input.password, deps.bcryptRounds) : null;
      for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt += 1) {
        const slug = generateSlug(slugLength, slugCharacterSet, deps.randomInt);
        const inserted = await repository.insert({ slug, content, passwordHash, maxViews: input.maxViews ?? null }, viaApi);
        if (inserted) return { slug: inserted.slug, url: `/paste/${inserted.slug}` };
      }
      throw new HttpError(503, 'Could not find a free slug; raise slugLength or choose a larger character set');
    },

    /** Counts and returns a view, or says the paste waits for its password; 404 and 410 otherwise. */
    async view(slug: string, unlocked: boolean): Promise<ViewResult> {
      const paste = await repository.view(slug, unlocked);
      if (paste) return { kind: 'shown', paste };
      const why = await repository.whyNotViewed(slug);
      if (why === 'not_found') throw HttpError.notFound('Paste not found');
      if (why === 'expired') throw new HttpError(410, 'Paste has expired');
      return { kind: 'locked', slug };
    },

    /** 404 or 410 like a view, without counting one (HEAD requests: link checkers must not use up a paste). */
    async peek(slug: string): Promise<void> {
      const state = await repository.state(slug);
      if (state === 'not_found') throw HttpError.notFound('Paste not found');
      if (state === 'expired') throw new HttpError(410, 'Paste has expired');
    },

    /** Checks a paste's password; the caller records the unlock in the session. */
    async verify(slug: string, password: string | undefined): Promise<void> {
      if (!password) throw HttpError.badRequest('Password is required');
      const found = await repository.findPasswordHash(slug);
      if (!found) throw HttpError.notFound('Paste not found');
      if (found.passwordHash === null) return;
      if (!(await bcrypt.compare(password, found.passwordHash))) throw HttpError.unauthorized('Incorrect password');
    },

    async clearAll(): Promise<number> {
      return repository.deleteAll();
    },

    /** Deletes inactive pastes under the autoDeleteInactive setting; 0 when it is `never`. */
    async deleteInactive(): Promise<number> {
      const { autoDeleteInactive } = settings.get();
      if (autoDeleteInactive === 'never') return 0;
      return repository.deleteInactive(Number(autoDeleteInactive));
    },
  };
}

export function tooLong(maxPasteSize: number): HttpError {
  return HttpError.badRequest(`Content exceeds maximum size of ${formatMegabytes(maxPasteSize)} MB`);
}

export type PasteService = ReturnType<typeof createPasteService>;
