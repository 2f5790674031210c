import type { DOMPurify } from 'dompurify';
import { appError, errorCodes } from '../common/error-codes.js';

export type ImageExtension = 'jpg' | 'png' | 'gif' | 'svg' | 'ico';

export interface CheckedImage {
  ext: ImageExtension;
  data: Buffer;
}

export const INVALID_TYPE = errorCodes.PASTE_INVALID_FILE_TYPE.message;

/** file-type's answer for the binary formats we take (it cannot recognise SVG, which is text). */
const binaryTypes: Record<string, ImageExtension> = { jpg: 'jpg', png: 'png', gif: 'gif', ico: 'ico' };

/** What a file name's extension claims, so a PNG named `.svg` is refused rather than served under a false name. */
const claimedTypes: Record<string, ImageExtension> = {
  jpg: 'jpg',
  jpeg: 'jpg',
  jpe: 'jpg',
  png: 'png',
  gif: 'gif',
  svg: 'svg',
  ico: 'ico',
};

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Decides a file's type from its bytes, refuses it when its name claims another type, and
 * sanitises SVG. Throws 400 for an empty file, an unknown type, or a mismatch.
 */
export async function checkImage(data: Buffer, originalName: string): Promise<CheckedImage> {
  if (data.length === 0) throw appError('PASTE_FILE_EMPTY');
  // file-type (and the tokenizers under it, 1.5 MB of heap) loads with the first upload.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(data);
  let ext: ImageExtension | undefined = detected ? binaryTypes[detected.ext] : undefined;
  if (!ext && (!detected || detected.ext === 'xml') && (await isSvg(data))) ext = 'svg';
  if (!ext) throw appError('PASTE_INVALID_FILE_TYPE');

  const nameExt = /\.([A-Za-z0-9]+)$/.exec(originalName)?.[1]?.toLowerCase();
  if (nameExt !== undefined && claimedTypes[nameExt] !== ext) {
    throw appError('PASTE_INVALID_FILE_TYPE', {
      message: `${INVALID_TYPE} (the file's content does not match its .${nameExt} name)`,
    });
  }
  if (ext !== 'svg') return { ext, data };
  const clean = await sanitizeSvg(data.toString('utf8'));
  if (!clean) throw appError('PASTE_INVALID_FILE_TYPE');
  return { ext, data: Buffer.from(clean, 'utf8') };
}

/**
 * jsdom, loaded at the first SVG: it is some 60 MB of memory, which a service that never receives
 * an SVG logo should not hold (docs/performance.md).
 */
const loadJsdom = () => import('jsdom');

/** A well-formed XML document whose root element is an SVG `<svg>`. */
async function isSvg(data: Buffer): Promise<boolean> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return false;
  }
  if (!/<svg[\s>]/i.test(text)) return false;
  const { JSDOM } = await loadJsdom();
  try {
    const { document } = new JSDOM(text, { contentType: 'image/svg+xml' }).window;
    const root = document.documentElement;
    return (
      root.localName === 'svg' &&
      root.namespaceURI === SVG_NS &&
      document.getElementsByTagName('parsererror').length === 0
    );
  } catch {
    return false;
  }
}

let purifier: DOMPurify | undefined;

/** One DOMPurify on one jsdom window for the process; the hook removes every external reference. */
async function getPurifier(): Promise<DOMPurify> {
  if (purifier) return purifier;
  const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([loadJsdom(), import('dompurify')]);
  if (purifier) return purifier;
  const instance = createDOMPurify(new JSDOM('').window);
  instance.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName.toLowerCase();
    const value = data.attrValue.trim();
    // Links and images may only point inside the document (`#id`).
    if ((name === 'href' || name.endsWith(':href') || name === 'src') && !value.startsWith('#')) data.keepAttr = false;
    // url(...) in presentation attributes or style: only local fragments.
    if (/url\s*\(\s*['"]?\s*(?!#)/i.test(value)) data.keepAttr = false;
    if (name.startsWith('on')) data.keepAttr = false;
  });
  purifier = instance;
  return instance;
}

/** The SVG without scripts, event handlers, foreignObject, styles or external references; '' when nothing is left. */
export async function sanitizeSvg(svg: string): Promise<string> {
  const clean = (await getPurifier()).sanitize(svg, {
    USE_PROFILES: { svg: true, svgFilters: true },
    FORBID_TAGS: ['script', 'foreignObject', 'style', 'image'],
    FORBID_ATTR: ['style'],
  });
  const trimmed = clean.trim();
  if (!/^<svg[\s>]/i.test(trimmed)) return '';
  // A standalone .svg file needs its namespace to render as an image.
  return /^<svg[^>]*\sxmlns=/i.test(trimmed) ? trimmed : trimmed.replace(/^<svg/i, `<svg xmlns="${SVG_NS}"`);
}
