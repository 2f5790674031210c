import { parseRows } from '@app/db';
import type pg from 'pg';
import { z } from 'zod';

export interface StoredUpload {
  contentType: string;
  data: Buffer;
}

const uploadRow = z.object({ content_type: z.string(), data: z.instanceof(Buffer) });

/** Uploaded files kept in the database (a database server: every instance serves them). */
export function createUploadRepository(pool: Pick<pg.Pool, 'query'>) {
  return {
    async insert(name: string, contentType: string, data: Buffer): Promise<void> {
      await pool.query('INSERT INTO paste_uploads (name, content_type, data) VALUES ($1, $2, $3)', [
        name,
        contentType,
        data,
      ]);
    },
    async delete(name: string): Promise<void> {
      await pool.query('DELETE FROM paste_uploads WHERE name = $1', [name]);
    },
    async find(name: string): Promise<StoredUpload | undefined> {
      const { rows } = await pool.query('SELECT content_type, data FROM paste_uploads WHERE name = $1', [name]);
      const row = parseRows(uploadRow, rows)[0];
      return row ? { contentType: row.content_type, data: row.data } : undefined;
    },
  };
}

export type UploadRepository = ReturnType<typeof createUploadRepository>;
