import { describe, expect, it } from 'vitest';
import { createdPasteSchema, clearedPastesSchema } from '../src/pastes/pastes.schema.js';
import { clearedPastesAnswer, createdPasteAnswer, unlockedAnswer } from '../src/pastes/pastes.presenter.js';

const created = {
  slug: 'abc123',
  url: '/paste/abc123',
  deleteToken: 'token',
  deleteUrl: 'http://localhost/paste/abc123/delete?token=token',
  expiresAt: new Date('2030-01-02T03:04:05.000Z'),
  title: null,
  language: 'auto',
  encrypted: false,
};

describe('the paste routes’ JSON answers', () => {
  it('a created paste: its links, its delete token, its time limit as ISO 8601, and nothing else', () => {
    const answer = createdPasteAnswer(created);
    expect(answer).toEqual({
      success: true,
      slug: 'abc123',
      url: '/paste/abc123',
      deleteToken: 'token',
      deleteUrl: 'http://localhost/paste/abc123/delete?token=token',
      expiresAt: '2030-01-02T03:04:05.000Z',
      title: null,
      language: 'auto',
    });
    expect(createdPasteSchema.strict().parse(answer)).toEqual(answer);
    expect(createdPasteAnswer({ ...created, expiresAt: null }).expiresAt).toBeNull();
  });

  it.each([
    [0, 'Cleared 0 pastes'],
    [1, 'Cleared 1 paste'],
    [2, 'Cleared 2 pastes'],
  ])('clearing %i pastes says "%s"', (count, message) => {
    const answer = clearedPastesAnswer(count);
    expect(answer).toEqual({ success: true, message, deletedCount: count });
    expect(clearedPastesSchema.strict().parse(answer)).toEqual(answer);
  });

  it('an unlocked paste answers success alone', () => {
    expect(unlockedAnswer()).toEqual({ success: true });
  });
});
