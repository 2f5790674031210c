import contentDisposition from 'content-disposition';

/**
 * `attachment`, with the file name when given: in plain ASCII (other characters as `?`) and,
 * when that differs, exactly in RFC 5987's `filename*`. An ASCII header reads the same through
 * every store and client (raw Latin-1 bytes do not).
 */
export function attachmentDisposition(fileName: string | undefined): string {
  if (fileName === undefined) return 'attachment';
  if (/[\r\n]/.test(fileName)) throw new RangeError('Invalid file name');
  return contentDisposition(fileName, { fallback: fileName.replace(/[^\x20-\x7e]/g, '?') });
}
