import { describe, expect, it } from 'vitest';
import { errorCodes } from '../src/common/error-codes.js';

describe("the paste service's error codes", () => {
  it('give every code an error status (4xx or 5xx) and a text', () => {
    for (const [code, { status, message }] of Object.entries(errorCodes)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(message.trim(), code).not.toBe('');
    }
  });
});
