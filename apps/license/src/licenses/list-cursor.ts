import { keysetCursor, type KeysetCursor } from '@app/db';
import { isUuid } from '../common/schemas.js';

/**
 * GET /api/licenses pages newest first by (created_at DESC, id); `cursor` continues after the
 * last row of a page without counting the rows before it (OFFSET reads every skipped row).
 * Licenses made in one transaction share created_at to the microsecond, hence the id.
 */
export type LicenseListCursor = KeysetCursor<string>;

const cursor = keysetCursor((id): id is string => typeof id === 'string' && isUuid(id));
export const encodeLicenseCursor = cursor.encode;
export const decodeLicenseCursor = cursor.decode;
