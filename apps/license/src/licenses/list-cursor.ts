/**
 * GET /api/licenses pages newest first by (created_at DESC, id); `cursor` continues after the
 * last row of a page without counting the rows before it (OFFSET reads every skipped row). The
 * cursor is that row's pair, opaque to callers (base64url of JSON), with the time as PostgreSQL's
 * text with all six decimals: licenses made in one transaction share created_at to the
 * microsecond, and a JavaScript Date keeps milliseconds only.
 */
export interface LicenseListCursor {
  /** `2026-01-31T12:00:00.123456Z` */
  createdAt: string;
  id: string;
}

const timestamp = /^[1-9]\d{3}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isRealTime = (text: string) => {
  const millis = `${text.slice(0, 23)}Z`;
  const parsed = new Date(millis);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString() === millis;
};

export function encodeLicenseCursor(cursor: LicenseListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/** undefined for anything this service did not hand out. */
export function decodeLicenseCursor(text: string): LicenseListCursor | undefined {
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
  if (typeof id !== 'string' || !uuid.test(id)) return undefined;
  return { createdAt, id };
}
