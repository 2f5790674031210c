import { createHash, timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcrypt';
import { isHttpError, type HttpError } from '@app/http';
import { appError } from '../common/error-codes.js';
import type { SettingsStore } from '@app/settings';
import type { PasteSettings } from '../settings/settings.schema.js';
import { deleteTokenMatches, hashDeleteToken, newDeleteToken } from './delete-token.js';
import type { Queryable } from '@app/db';
import * as repo from './pastes.repository.js';
import type { PasteSummary, ViewedPaste } from './pastes.repository.js';
import * as attempts from './password-attempts.repository.js';
import { MAX_EXPIRY_SECONDS, type CreatePasteInput, type EnvelopeInput } from './pastes.schema.js';
import { generateSlug, type RandomInt } from './slug.js';
import { DEFAULT_LANGUAGE } from '../rendering/languages.js';
import type { AttachmentDownload, AttachmentService } from '../attachments/attachments.service.js';

const MB = 1024 * 1024;
/** Slugs are drawn again on a collision; with the smallest space (4 digits) a few tries suffice until it is nearly full. */
const SLUG_ATTEMPTS = 20;
/**
 * Wrong passwords (and wrong key checks of encrypted pastes) one client address may send for one
 * paste in a window of 15 minutes; after that the paste answers 429 to that address only (the
 * right password or key too) until the window that began with its first wrong one is over. There
 * is no limit per paste (decisions.md wave 4, replacing wave 3's 300 an hour): strangers at other
 * addresses can never lock out the reader who has the password.
 */
export const MAX_WRONG_PASSWORDS_PER_ADDRESS = 10;
export const ADDRESS_WINDOW_MS = 15 * 60_000;

/** What the creator's page shows of a paste (the creator feature reads it through here). */
export type { PasteSummary };

export interface PasteServiceDeps {
  db: Queryable;
  /** Batches of each kind in flight at once (`batchConcurrency(pool)` of @app/db; default 2). */
  batchesInFlight?: number;
  settings: SettingsStore<PasteSettings>;
  now: () => Date;
  randomInt: RandomInt;
  /** A new delete token (crypto random by default). */
  deleteToken?: () => string;
  bcryptRounds: number;
  /** The site's public base URL: links handed out (deleteUrl, the creator's page) are absolute. */
  publicUrl: string;
  /** The files of pastes in the object store. */
  attachments: AttachmentService;
}

/** A paste whose files never arrived is deleted after this many hours (its upload URLs lapsed long before). */
export const ABANDONED_AFTER_HOURS = 24;

export interface CreatedPaste {
  slug: string;
  /** `/paste/<slug>`, as the specification shows it. */
  url: string;
  /** Answered once; only its hash is stored. */
  deleteToken: string;
  deleteUrl: string;
  /** The time limit; null without one. */
  expiresAt: Date | null;
  title: string | null;
  language: string;
  encrypted: boolean;
  /** With attachments: each file's id and upload URL; the paste waits for `complete`. */
  attachments?: Array<{ id: string; uploadUrl: string }>;
}

/** Who asks to delete: the delete token they carry, and whether they are the signed-in owner. */
export interface DeleteCredentials {
  token: string | undefined;
  owner: boolean;
}

/**
 * An encrypted paste with a key check, asked for without one (a page the browser navigated to
 * cannot send a header): its page's script sends the check; nothing was counted.
 */
export type KeyNeeded = { kind: 'key'; paste: PasteSummary };

export type ViewResult =
  | { kind: 'shown'; paste: ViewedPaste }
  | { kind: 'locked'; slug: string }
  /** A reveal-on-click paste: its "Show paste" page, with a password field when `needsPassword`. */
  | { kind: 'reveal'; slug: string; needsPassword: boolean }
  | KeyNeeded;

/** What the "Show paste" button gets: the paste, or (`passwordChecked`: the password was right) its key check first. */
export type RevealResult = { kind: 'shown'; paste: ViewedPaste } | (KeyNeeded & { passwordChecked: boolean });

/** The verifier's 32 bytes as X-Paste-Key-Check carries them (unpadded base64url). */
const KEY_CHECK_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Whether the key check a reader sent hashes to the paste's keyHash (compared in constant time). */
function keyCheckMatches(keyCheck: string, keyHash: string): boolean {
  if (!KEY_CHECK_PATTERN.test(keyCheck)) return false;
  const sent = createHash('sha256').update(Buffer.from(keyCheck, 'base64url')).digest();
  const stored = Buffer.from(keyHash, 'base64url');
  return stored.length === sent.length && timingSafeEqual(sent, stored);
}

const invalid = (field: string, message: string) => appError('VALIDATION_FAILED', { details: { [field]: message } });

export function formatMegabytes(value: number): string {
  return String(Number(value.toFixed(2)));
}

export function createPasteService(deps: PasteServiceDeps) {
  const { db, settings } = deps;
  // The one state of the paste statements: the queues of concurrent creates and views waiting
  // for the statement in flight, shared by every route of this app (pastes.repository.ts).
  const batches = repo.createPasteBatches(db, { batchesInFlight: deps.batchesInFlight });

  const base = deps.publicUrl.replace(/\/+$/, '');
  const makeDeleteToken = deps.deleteToken ?? newDeleteToken;

  const links = (slug: string, deleteToken: string) => ({
    link: `${base}/paste/${slug}`,
    // The token rides in the fragment: browsers never send it to the server, so it stays out
    // of request logs and Referer headers; the confirm page's script posts it in a form body.
    deleteUrl: `${base}/paste/${slug}/delete#${deleteToken}`,
  });
  const tooManyAttempts = () => appError('PASTE_TOO_MANY_ATTEMPTS');
  /** An address's window that opened at or before this instant is over. */
  const addressOpenedAfter = (now: Date) => new Date(now.getTime() - ADDRESS_WINDOW_MS);
  const locked = (counts: { addressFailures: number }) => counts.addressFailures >= MAX_WRONG_PASSWORDS_PER_ADDRESS;
  /** Whether password and key checks of the paste answer 429 to this address (false for an unknown paste). */
  const lockedByAttempts = async (slug: string, address: string) => {
    const found = await attempts.findPasswordCheck(db, slug, address, addressOpenedAfter(deps.now()));
    return found !== undefined && locked(found);
  };
  /**
   * Counts a wrong password or key check from `address` and throws `wrong`, or 429 once the
   * address is past its limit. The counts decide, not an earlier look: of simultaneous wrong
   * guesses from one address exactly the first MAX_WRONG_PASSWORDS_PER_ADDRESS of its window get
   * `wrong`.
   */
  const failAttempt = async (slug: string, address: string, wrong: HttpError): Promise<never> => {
    const now = deps.now();
    const recorded = await attempts.recordWrongAttempt(db, slug, address, now, addressOpenedAfter(now));
    if (recorded && recorded.addressFailures > MAX_WRONG_PASSWORDS_PER_ADDRESS) throw tooManyAttempts();
    throw wrong;
  };

  const checkPassword = async (slug: string, password: string | undefined, address: string): Promise<void> => {
    if (!password) throw appError('PASTE_PASSWORD_REQUIRED');
    const found = await attempts.findPasswordCheck(db, slug, address, addressOpenedAfter(deps.now()));
    if (!found) throw appError('PASTE_NOT_FOUND');
    if (found.passwordHash === null) return;
    if (locked(found)) throw tooManyAttempts();
    if (await bcrypt.compare(password, found.passwordHash)) {
      // Concurrent wrong guesses may have used up a window while this one was compared.
      if (await lockedByAttempts(slug, address)) throw tooManyAttempts();
      return;
    }
    await failAttempt(slug, address, appError('PASTE_PASSWORD_INCORRECT'));
  };

  /**
   * The key check of a read that carries X-Paste-Key-Check (`keyCheck`; undefined: none came),
   * made before anything is counted (decisions.md wave 4). Answers the keyHash to count the view
   * under: null for a paste without one (wave 3's rule: any reader counts), the paste's own when
   * the check matches. Otherwise 403 `Wrong key`, counted against the address like a wrong
   * password (429 `Too many attempts` past the limit, the right key too). 404 and 410 come first,
   * as for any read.
   */
  const checkKey = async (slug: string, keyCheck: string | undefined, address: string): Promise<string | null> => {
    // One round trip: the paste's state and the address's count.
    const found = await attempts.findPasswordCheck(db, slug, address, addressOpenedAfter(deps.now()));
    if (!found) throw appError('PASTE_NOT_FOUND');
    if (found.expired) throw appError('PASTE_EXPIRED');
    if (found.keyHash === null) return null;
    if (locked(found)) throw tooManyAttempts();
    if (keyCheck !== undefined && keyCheckMatches(keyCheck, found.keyHash)) return found.keyHash;
    return failAttempt(slug, address, appError('PASTE_WRONG_KEY'));
  };

  /** The page of a paste that waits for its key check: its counts so far, nothing counted. */
  const keyNeeded = async (slug: string): Promise<KeyNeeded> => {
    const paste = await repo.pasteSummary(db, slug);
    if (!paste) throw appError('PASTE_NOT_FOUND');
    return { kind: 'key', paste };
  };

  return {
    links,

    /** Stores a paste; `viaApi` counts it in apiUsage. */
    async create(input: CreatePasteInput, viaApi: boolean): Promise<CreatedPaste> {
      const { maxPasteSize, slugLength, slugCharacterSet } = settings.get();
      const encrypted = input.encrypted !== undefined;
      let content: string;
      const files = input.attachments ?? [];
      if (files.length > 0) {
        const total = files.reduce((sum, file) => sum + file.size, 0);
        if (total > settings.get().maxAttachmentBytes) throw appError('PASTE_ATTACHMENTS_TOO_LARGE');
      }
      if (input.encrypted) {
        // The limit applies to what is stored: the ciphertext (the encrypted UTF-8 JSON and its tag).
        if (ciphertextBytes(input.encrypted) > maxPasteSize * MB) throw tooLong(maxPasteSize);
        content = envelopeText(input.encrypted);
      } else {
        // A paste may be its files alone.
        if (files.length === 0 && (input.content === undefined || input.content.trim() === ''))
          throw appError('PASTE_CONTENT_EMPTY');
        content = input.content ?? '';
        if (Buffer.byteLength(content, 'utf8') > maxPasteSize * MB) throw tooLong(maxPasteSize);
      }

      const expiresAt = expiryOf(input, deps.now());
      const passwordHash = input.password ? await bcrypt.hash(input.password, deps.bcryptRounds) : null;
      const deleteToken = makeDeleteToken();
      const deleteTokenHash = hashDeleteToken(deleteToken);
      const title = input.title ?? null;
      const language = input.language ?? DEFAULT_LANGUAGE;
      for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt += 1) {
        const slug = generateSlug(slugLength, slugCharacterSet, deps.randomInt);
        const paste = {
          slug,
          content,
          passwordHash,
          maxViews: input.maxViews ?? null,
          deleteTokenHash,
          expiresAt,
          revealOnClick: input.revealOnClick ?? false,
          title,
          language,
          encrypted,
        };
        if (files.length > 0) {
          // Not batched: a paste with files is rare, and it needs its id for the files' rows.
          const pending = await repo.insertPendingPaste(db, paste);
          if (!pending) continue;
          let uploads: Array<{ id: string; uploadUrl: string }>;
          try {
            uploads = await deps.attachments.declare(pending.id, files);
          } catch (error) {
            await repo.deletePasteById(db, pending.id);
            throw storageError(error);
          }
          return {
            slug: pending.slug,
            url: `/paste/${pending.slug}`,
            deleteToken,
            deleteUrl: links(pending.slug, deleteToken).deleteUrl,
            expiresAt,
            title,
            language,
            encrypted,
            attachments: uploads,
          };
        }
        const inserted = await batches.insert(paste, viaApi);
        if (inserted) {
          return {
            slug: inserted.slug,
            url: `/paste/${inserted.slug}`,
            deleteToken,
            deleteUrl: links(inserted.slug, deleteToken).deleteUrl,
            expiresAt,
            title,
            language,
            encrypted,
          };
        }
      }
      throw appError('PASTE_NO_FREE_SLUG');
    },

    /**
     * Counts and returns a view, or says the paste waits for its password or its key check; 404
     * and 410 otherwise. `address` is the client's: a password form it could only get 429 from
     * answers 429 at once. `keyCheck` is X-Paste-Key-Check when the request sent one: an encrypted
     * paste with a key check counts a view only with the right one (403 `Wrong key` for another).
     */
    async view(slug: string, unlocked: boolean, address: string, keyCheck?: string): Promise<ViewResult> {
      const paste =
        keyCheck === undefined
          ? await batches.view(slug, unlocked)
          : await repo.viewPasteWithKey(db, slug, unlocked, await checkKey(slug, keyCheck, address));
      if (paste) return { kind: 'shown', paste };
      const why = await repo.whyNotViewed(db, slug, unlocked);
      if (why === 'not_found') throw appError('PASTE_NOT_FOUND');
      if (why === 'expired') throw appError('PASTE_EXPIRED');
      if (why === 'key') return keyNeeded(slug);
      if (why === 'reveal') {
        // The button page counts nothing; its password field is needed unless the session unlocked it.
        const needsPassword = !unlocked && (await repo.inspectPaste(db, slug))?.hasPassword === true;
        if (needsPassword && (await lockedByAttempts(slug, address))) throw tooManyAttempts();
        return { kind: 'reveal', slug, needsPassword };
      }
      // Its password form would only answer 429: say so at once.
      if (await lockedByAttempts(slug, address)) throw tooManyAttempts();
      return { kind: 'locked', slug };
    },

    /**
     * The view behind a "Show paste" button (POST /paste/:slug/reveal, POST /paste/:slug/raw):
     * counts it under the same rules as any view (404, 410, exact under concurrency). The key
     * check comes first when one was sent (`keyCheck`, as for `view`). A password paste needs
     * the session's unlock or the right password (checked and counted as by verify). A paste with
     * a key check asked for without one counts nothing and answers `key`.
     */
    async reveal(
      slug: string,
      unlocked: boolean,
      password: string | undefined,
      address: string,
      keyCheck?: string,
    ): Promise<RevealResult> {
      const keyHash = keyCheck === undefined ? null : await checkKey(slug, keyCheck, address);
      let passwordChecked = false;
      if (!unlocked) {
        const found = await repo.inspectPaste(db, slug);
        if (!found) throw appError('PASTE_NOT_FOUND');
        if (found.expired) throw appError('PASTE_EXPIRED');
        if (found.hasPassword) {
          await checkPassword(slug, password, address);
          passwordChecked = true;
        }
      }
      const paste = await repo.revealPaste(db, slug, true, keyHash);
      if (paste) return { kind: 'shown', paste };
      const found = await repo.inspectPaste(db, slug);
      if (!found) throw appError('PASTE_NOT_FOUND');
      if (!found.expired && found.keyHash !== null && keyHash === null)
        return { ...(await keyNeeded(slug)), passwordChecked };
      // Used up by a concurrent view since the check above.
      throw appError('PASTE_EXPIRED');
    },

    /**
     * A raw read of a paste with a key check that sent none (`view` answered `key`): 403 `Wrong
     * key`, counted against the address like a wrong password.
     */
    async refuseMissingKey(slug: string, address: string): Promise<never> {
      await checkKey(slug, undefined, address);
      throw appError('PASTE_WRONG_KEY');
    },

    /**
     * 404 or 410 like a view, without counting one: HEAD requests and link-preview agents must not
     * use up a paste. Counted in the paste's preview fetches instead.
     */
    async peek(slug: string): Promise<void> {
      const state = await repo.previewFetch(db, slug);
      if (state === 'not_found') throw appError('PASTE_NOT_FOUND');
      if (state === 'expired') throw appError('PASTE_EXPIRED');
    },

    /**
     * Checks a paste's password sent from the client `address`; the caller records the unlock in
     * the session. A wrong one is counted against the address: after 10 from one address in its
     * 15 minutes, every attempt from that address (right or wrong) answers 429 `Too many
     * attempts` until those 15 minutes are over. Other addresses are never refused for it.
     */
    verify: checkPassword,

    /** The limits and count of a paste for its creator's page, counting no view; 404 when gone. */
    async summary(slug: string): Promise<PasteSummary> {
      const found = await repo.pasteSummary(db, slug);
      if (!found) throw appError('PASTE_NOT_FOUND');
      return found;
    },

    /** 404 when there is no such paste (the delete page asks only about pastes that exist). */
    async requireExists(slug: string): Promise<void> {
      if (!(await repo.findDeleteTokenHash(db, slug))) throw appError('PASTE_NOT_FOUND');
    },

    /**
     * Deletes a paste for the owner, or for whoever carries its delete token: 404 `Paste not
     * found` for an unknown slug, 403 `Invalid delete token` for a missing or wrong token.
     */
    async remove(slug: string, credentials: DeleteCredentials): Promise<void> {
      const found = await repo.findDeleteTokenHash(db, slug);
      if (!found) throw appError('PASTE_NOT_FOUND');
      if (!credentials.owner && !deleteTokenMatches(credentials.token, found.deleteTokenHash)) {
        throw appError('PASTE_INVALID_DELETE_TOKEN');
      }
      // A concurrent delete may have won: the paste is gone either way, but this request deleted nothing.
      if (!(await repo.deletePasteById(db, found.id))) throw appError('PASTE_NOT_FOUND');
    },

    /**
     * Makes a paste with files readable once every file is in the store at its declared size
     * (checked by `head`): 403 `Invalid delete token` without the paste's token, 409
     * `Attachments not uploaded` while any is missing. Completing it again answers the same.
     */
    async complete(slug: string, token: string | undefined): Promise<{ slug: string; url: string }> {
      const done = { slug, url: `/paste/${slug}` };
      const pending = await repo.findPendingPaste(db, slug);
      if (!pending) {
        const found = await repo.findDeleteTokenHash(db, slug);
        if (!found) throw appError('PASTE_NOT_FOUND');
        if (!deleteTokenMatches(token, found.deleteTokenHash)) throw appError('PASTE_INVALID_DELETE_TOKEN');
        return done;
      }
      if (!deleteTokenMatches(token, pending.deleteTokenHash)) throw appError('PASTE_INVALID_DELETE_TOKEN');
      let checked: { count: number; missing: string[] };
      try {
        checked = await deps.attachments.checkUploaded(pending.id);
      } catch (error) {
        throw storageError(error);
      }
      if (checked.missing.length > 0) {
        throw appError('PASTE_ATTACHMENTS_MISSING', {
          message: `Attachments not uploaded: ${checked.missing.join(', ')}`,
        });
      }
      // A paste made meanwhile under the same slug (a tiny slug space) leaves this one pending.
      if (!(await repo.publishPendingPaste(db, pending.id, slug, checked.count))) throw appError('PASTE_NO_FREE_SLUG');
      return done;
    },

    /**
     * The files of a paste whose view was just counted, with download URLs (10 minutes); none
     * for a paste without files. Only a counted view calls this.
     */
    async downloads(paste: ViewedPaste): Promise<AttachmentDownload[]> {
      if (paste.attachments === 0) return [];
      try {
        return await deps.attachments.downloads(paste.id);
      } catch (error) {
        throw storageError(error);
      }
    },

    /** Deletes pastes whose files never arrived. */
    async deleteAbandoned(): Promise<number> {
      return repo.deleteAbandonedPastes(db, ABANDONED_AFTER_HOURS);
    },

    async clearAll(): Promise<number> {
      return repo.deleteAllPastes(db);
    },

    /** Deletes the pastes past their time limit (they answer 410 from that moment already). */
    async deleteExpired(): Promise<number> {
      return repo.deleteExpiredPastes(db);
    },

    /** Deletes the per-address counts of wrong passwords whose window is over. */
    async forgetEndedAddressWindows(): Promise<number> {
      return attempts.deleteEndedAddressWindows(db, addressOpenedAfter(deps.now()));
    },

    /** Deletes inactive pastes under the autoDeleteInactive setting; 0 when it is `never`. */
    async deleteInactive(): Promise<number> {
      const { autoDeleteInactive } = settings.get();
      if (autoDeleteInactive === 'never') return 0;
      return repo.deleteInactivePastes(db, Number(autoDeleteInactive));
    },
  };
}

/**
 * The time limit asked for: `expiresIn` seconds from now, or `expiresAt` (in the future, at
 * most a year ahead); null without one. Both at once were refused by the schema.
 */
function expiryOf(input: CreatePasteInput, now: Date): Date | null {
  if (input.expiresIn !== undefined) return new Date(now.getTime() + input.expiresIn * 1000);
  if (input.expiresAt === undefined) return null;
  const at = new Date(input.expiresAt);
  if (at.getTime() <= now.getTime()) throw invalid('expiresAt', 'expiresAt must be in the future');
  if (at.getTime() > now.getTime() + MAX_EXPIRY_SECONDS * 1000)
    throw invalid('expiresAt', 'expiresAt must be at most one year ahead');
  return at;
}

/** Bytes of the ciphertext an envelope carries (unpadded base64url: 3 bytes per 4 characters). */
function ciphertextBytes(envelope: EnvelopeInput): number {
  return Math.floor((envelope.ciphertext.length * 3) / 4);
}

/**
 * The envelope as stored and answered: its known fields only, in one order. `keyHash` comes right
 * after `v`, where the repository's KEY_HASH_SQL reads it without reading the ciphertext.
 */
function envelopeText(envelope: EnvelopeInput): string {
  const { v, keyHash, iv, salt, ciphertext } = envelope;
  return JSON.stringify({
    v,
    ...(keyHash === undefined ? {} : { keyHash }),
    iv,
    ...(salt === undefined ? {} : { salt }),
    ciphertext,
  });
}

/** A store that failed (down, refusing): 503, the cause logged by the error handler, never a 500. */
function storageError(error: unknown): HttpError {
  if (isHttpError(error)) return error;
  return Object.assign(appError('PASTE_STORAGE_UNAVAILABLE'), { cause: error });
}

export function tooLong(maxPasteSize: number): HttpError {
  return appError('PASTE_CONTENT_TOO_LONG', {
    message: `Content exceeds maximum size of ${formatMegabytes(maxPasteSize)} MB`,
  });
}

export type PasteService = ReturnType<typeof createPasteService>;
