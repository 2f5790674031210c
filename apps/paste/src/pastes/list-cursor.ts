/**
 * The owner's list pages by keyset (created_at, id), newest first. The cursor is the last row's
 * pair, opaque to callers (base64url of JSON). The time is kept as PostgreSQL's text with all
 * six decimals: a JavaScript Date keeps milliseconds only, and pastes made in the same
 * millisecond would then be skipped or repeated across pages.
 */
export interface ListCursor {
  /** `2026-01-31T12:00:00.123456Z` */
  createdAt: string;
  id: number;
}

const timestamp = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A real instant: the date parses back to the same text (no 30 February), so the database never refuses it. */
const isRealTime = (text: string) => {
  const millis = `${text.slice(0, 23)}Z`;
  const parsed = new Date(millis);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString() === millis;
};

export function encodeListCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/** undefined for anything this service did not hand out. */
export function decodeListCursor(text: string): ListCursor | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [createdAt, id] = value as unknown[];
  if (typeof createdAt !== 'string' || !timestamp.test(createdAt) || !isRealTime(createdAt)) return undefined;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return undefined;
  return { createdAt, id };
}
