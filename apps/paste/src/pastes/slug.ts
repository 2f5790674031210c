import { randomInt } from 'node:crypto';
import type { PasteSettings } from '../settings/settings.schema.js';

const lower = 'abcdefghijklmnopqrstuvwxyz';
const upper = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const digits = '0123456789';

/** `lowercase` is lowercase letters only, so a slug never mixes in digits the owner did not ask for. */
export const slugAlphabets: Record<PasteSettings['slugCharacterSet'], string> = {
  alphanumeric: upper + lower + digits,
  lowercase: lower,
  numbers: digits,
  letters: upper + lower,
};

export type RandomInt = (maxExclusive: number) => number;

/** A slug drawn with a cryptographic random source (crypto.randomInt by default). */
export function generateSlug(
  length: number,
  set: PasteSettings['slugCharacterSet'],
  random: RandomInt = randomInt,
): string {
  const alphabet = slugAlphabets[set];
  let slug = '';
  for (let i = 0; i < length; i += 1) slug += alphabet[random(alphabet.length)];
  return slug;
}
