import { parseRows, type Queryable } from '@app/db';
import { z } from 'zod';

export interface StoredUpload {
  contentType: string;
  data: Buffer;
}

const uploadRow = z.object({ content_type: z.string(), data: z.instanceof(Buffer) });

// Uploaded files kept in the database (a database server: every instance serves them).

export async function insertUpload(db: Queryable, name: string, contentType: string, data: Buffer): Promise<void> {
  await db.query('INSERT INTO paste_uploads (name, content_type, data) VALUES ($1, $2, $3)', [name, contentType, data]);
}

export async function deleteUpload(db: Queryable, name: string): Promise<void> {
  await db.query('DELETE FROM paste_uploads WHERE name = $1', [name]);
}

export async function findUpload(db: Queryable, name: string): Promise<StoredUpload | undefined> {
  const { rows } = await db.query('SELECT content_type, data FROM paste_uploads WHERE name = $1', [name]);
  const row = parseRows(uploadRow, rows)[0];
  return row ? { contentType: row.content_type, data: row.data } : undefined;
}
