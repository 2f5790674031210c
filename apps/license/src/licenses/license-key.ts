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
