import { randomBytes } from 'node:crypto';
import type { Queryable } from '@app/db';
import type { Logger } from '@app/http';
import { removePendingObjects, sweepOrphanObjects, type ObjectStore } from '@app/storage';
import * as repo from './attachments.repository.js';

/** What a paste's creator declares for each file (name and type only on plain pastes). */
export interface AttachmentDeclaration {
  size: number;
  name?: string;
  type?: string;
}

/** What a counted view lists for each file: `url` works for 10 minutes. */
export interface AttachmentDownload {
  id: string;
  size: number;
  url: string;
  name?: string;
  type?: string;
}

/** Objects of attachments live under this prefix of the store, one per attachment id. */
export const OBJECT_PREFIX = 'pastes/';
export const objectKey = (id: string) => `${OBJECT_PREFIX}${id}`;

/** Rows removed per run of the cleanup job (it runs every minute; more wait for the next). */
const REMOVALS_PER_RUN = 500;

/**
 * The files of pastes in the object store: declared with the paste, uploaded by the client
 * straight to the store (presigned URLs), checked by `head` when the paste is completed, handed
 * out by counted views only, and removed by the cleanup job once their paste is gone.
 */
export function createAttachmentService(deps: { db: Queryable; store: ObjectStore; logger: Logger }) {
  const { db, store, logger } = deps;
  return {
    store,

    /** Records the files of a new (pending) paste; answers each one's id and upload URL. */
    async declare(pasteId: number, files: AttachmentDeclaration[]): Promise<Array<{ id: string; uploadUrl: string }>> {
      const rows = files.map((file, position) => ({
        id: randomBytes(16).toString('hex'),
        position,
        size: file.size,
        name: file.name ?? null,
        type: file.type ?? null,
      }));
      await repo.insertAttachments(db, pasteId, rows);
      return Promise.all(
        rows.map(async (row) => ({
          id: row.id,
          uploadUrl: (await store.uploadUrl(objectKey(row.id), { size: row.size })).url,
        })),
      );
    },

    /**
     * Whether every file of the paste is in the store at its declared size (a `head` each); the
     * ids missing or of another size otherwise. Marks them uploaded when all are there.
     */
    async checkUploaded(pasteId: number): Promise<{ count: number; missing: string[] }> {
      const files = await repo.attachmentsOf(db, pasteId);
      const found = await Promise.all(files.map((file) => store.head(objectKey(file.id))));
      const missing = files.filter((file, index) => found[index]?.size !== file.size).map((file) => file.id);
      if (missing.length === 0) await repo.markUploaded(db, pasteId);
      return { count: files.length, missing };
    },

    /** The download URLs of a paste a view was just counted for (they lapse after 10 minutes). */
    async downloads(pasteId: number): Promise<AttachmentDownload[]> {
      const files = await repo.handOutUrls(db, pasteId);
      return Promise.all(
        files.map(async (file) => ({
          id: file.id,
          size: file.size,
          url: (await store.downloadUrl(objectKey(file.id), { fileName: file.name ?? undefined })).url,
          ...(file.name === null ? {} : { name: file.name }),
          ...(file.type === null ? {} : { type: file.type }),
        })),
      );
    },

    /**
     * Removes the objects of pastes that are gone, past their time or used up (once the URLs
     * handed out have lapsed), then their rows. A store that fails keeps the row: the next run
     * tries again. Answers how many were removed.
     */
    removeDue: (): Promise<number> =>
      removePendingObjects(
        store,
        {
          due: (limit) => repo.dueForRemoval(db, limit),
          keyOf: objectKey,
          forget: (id) => repo.deleteAttachment(db, id),
        },
        { limit: REMOVALS_PER_RUN, warn: (fields, message) => logger.warn(fields, message) },
      ),

    /**
     * Compares the store with the table: removes every object under `pastes/` that has no row
     * (an upload that finished after its pending paste was abandoned, a row lost). Answers how
     * many objects it removed.
     */
    sweepOrphans: (): Promise<number> =>
      sweepOrphanObjects(store, {
        prefix: OBJECT_PREFIX,
        known: async (keys) => {
          const ids = await repo.existingIds(
            db,
            keys.map((key) => key.slice(OBJECT_PREFIX.length)),
          );
          return new Set([...ids].map(objectKey));
        },
      }),
  };
}

export type AttachmentService = ReturnType<typeof createAttachmentService>;
