// Air-gapped machines: the application makes an activation request code, the customer (or an
// admin) pastes it in the portal (or the console) on a computer that is online, and carries the
// license file it gives back to the machine, where verifyLicenseFile checks it as any bound file.

/** The code stays under this many characters, so it fits a QR code a phone reads off the screen. */
export const activationRequestMaxLength = 600;

export interface ActivationRequestInput {
  /** The license key. */
  key: string;
  /** This machine's fingerprint (1–200 characters): the file will be bound to it. */
  fingerprint: string;
  /** A name for the machine (up to 100 characters), shortened if the code would be too long. */
  name?: string;
  /** Its platform (up to 50 characters), shortened likewise. */
  platform?: string;
  /** The time the code says it was made (default: now). */
  now?: Date;
}

const encode = (request: Record<string, unknown>) => Buffer.from(JSON.stringify(request), 'utf8').toString('base64url');

/** Cuts text to `max` UTF-16 units without leaving half of a surrogate pair. */
const cut = (text: string, max: number) => {
  const part = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(part) ? part.slice(0, -1) : part;
};

/**
 * The activation request code of this machine: base64url of the JSON `{ v: 1, k: key,
 * f: fingerprint, n?: name, p?: platform, t: Unix seconds }` (one-letter names keep it short),
 * under 600 characters. The name and then the platform are shortened when the code would be
 * longer; a key and fingerprint that alone do not fit throw a RangeError.
 */
export function createActivationRequest(input: ActivationRequestInput): string {
  const key = input.key.trim();
  const fingerprint = input.fingerprint.trim();
  if (!key) throw new RangeError('createActivationRequest: key is required');
  if (!fingerprint || fingerprint.length > 200)
    throw new RangeError('createActivationRequest: fingerprint must be 1 to 200 characters');
  let name = cut(input.name?.trim() ?? '', 100);
  let platform = cut(input.platform?.trim() ?? '', 50);
  const t = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const code = () =>
    encode({ v: 1, k: key, f: fingerprint, ...(name ? { n: name } : {}), ...(platform ? { p: platform } : {}), t });
  let result = code();
  while (result.length >= activationRequestMaxLength && (name || platform)) {
    // Each step drops a few characters of the name first (its end matters least), then of the platform.
    if (name) name = cut(name, Math.max(0, name.length - 4)).trimEnd();
    else platform = cut(platform, Math.max(0, platform.length - 4)).trimEnd();
    result = code();
  }
  if (result.length >= activationRequestMaxLength)
    throw new RangeError(
      `createActivationRequest: the key and fingerprint are too long for a ${activationRequestMaxLength}-character code`,
    );
  return result;
}
