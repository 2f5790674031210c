import type pg from 'pg';

export interface StoredUpload {
  contentType: string;
  data: Buffer;
}

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
      const { rows } = await pool.query<{ content_type: string; data: Buffer }>(
        'SELECT content_type, data FROM paste_uploads WHERE name = $1',
        [name],
      );
      const row = rows[0];
      return row ? { contentType: row.content_type, data: row.data } : undefined;
    },
  };
}

export type UploadRepository = ReturnType<typeof createUploadRepository>;
