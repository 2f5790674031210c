import { keysetCursor, type KeysetCursor } from '@app/db';

/** The owner's paste list pages by keyset (created_at, id), newest first; ids are serial numbers. */
export type ListCursor = KeysetCursor<number>;

const cursor = keysetCursor((id): id is number => typeof id === 'number' && Number.isSafeInteger(id) && id >= 1);
export const encodeListCursor = cursor.encode;
export const decodeListCursor = cursor.decode;
