import { describe, expect, it } from 'vitest';
import { deleteTokenMatches, hashDeleteToken, newDeleteToken } from '../src/pastes/delete-token.js';

describe('delete tokens', () => {
  it('are 43 URL-safe characters, never repeated across refills of the random buffer', () => {
    // 1,000 tokens draw 32,000 bytes: the 4 KiB buffer is refilled seven times on the way.
    const tokens = Array.from({ length: 1000 }, () => newDeleteToken());
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(1000);
    // No token shares a 16-character run with another (a reused slice of the buffer would).
    const halves = new Set(tokens.flatMap((token) => [token.slice(0, 16), token.slice(21, 37)]));
    expect(halves.size).toBe(2000);
  });

  it('match their own hash only', () => {
    const [one, two] = [newDeleteToken(), newDeleteToken()];
    expect(deleteTokenMatches(one, hashDeleteToken(one))).toBe(true);
    expect(deleteTokenMatches(two, hashDeleteToken(one))).toBe(false);
  });
});
