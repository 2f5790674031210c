import { randomBytes } from 'node:crypto';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 24 base62 characters = 142 bits from the operating system's CSPRNG: guessing is hopeless. */
const codeLength = 24;
// Bytes at or above 248 (= 4 * 62) are dropped so every character is equally likely.
const unbiasedBelow = 248;

/** A new license key `<PREFIX>-<code>`; keys are case-sensitive. */
export function generateLicenseKey(prefix: string, random: (size: number) => Buffer = randomBytes): string {
  let code = '';
  while (code.length < codeLength) {
    for (const byte of random(codeLength * 2)) {
      if (byte < unbiasedBelow && code.length < codeLength) code += alphabet[byte % 62];
    }
  }
  return `${prefix}-${code}`;
}

// A key anywhere in a text: a product prefix, "-", 24 base62 characters, not inside a longer word.
const keyInText = new RegExp(
  `(?<![A-Za-z0-9_-])([A-Za-z0-9][A-Za-z0-9_-]{0,19})-[A-Za-z0-9]{${codeLength - 4}}([A-Za-z0-9]{4})(?![A-Za-z0-9_-])`,
  'g',
);

/** Every license key in a text shown as its prefix and last 4 characters (`ACME-…Wx3z`), for logs. */
export function maskLicenseKeys(text: string): string {
  return text.replace(keyInText, '$1-…$2');
}
