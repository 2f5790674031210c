/**
 * A keyset cursor for lists paged by (created_at, id): the last row's pair, opaque to callers
 * (base64url of JSON). The time is kept as PostgreSQL's text with all six decimals: a JavaScript
 * Date keeps milliseconds only, and rows made in the same millisecond (or one transaction) would
 * then be skipped or repeated across pages.
 */
export interface KeysetCursor<Id> {
  /** `2026-01-31T12:00:00.123456Z` */
  createdAt: string;
  id: Id;
}

const timestamp = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A real instant: the date parses back to the same text (no 30 February), so the database never refuses it. */
const isRealTime = (text: string) => {
  const millis = `${text.slice(0, 23)}Z`;
  const parsed = new Date(millis);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString() === millis;
};

/** Encoding and decoding of one list's cursors; `isId` says what an id of that table looks like. */
export function keysetCursor<Id>(isId: (value: unknown) => value is Id) {
  return {
    encode: (cursor: KeysetCursor<Id>): string =>
      Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url'),

    /** undefined for anything this service did not hand out. */
    decode: (text: string): KeysetCursor<Id> | undefined => {
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
      if (!isId(id)) return undefined;
      return { createdAt, id };
    },
  };
}
