import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportFilename } from '../src/exports/export-output.js';
import { buildTestApp, type Session, type TestApp } from './helpers.js';

// Export files are named after the UTC date they were made on, the same way for every kind.

describe('export file names', () => {
  it.each([
    { at: '2026-11-24T10:15:00.000Z', name: 'licenses', extension: 'csv', file: 'licenses-2026-11-24.csv' },
    { at: '2026-11-24T23:59:59.999Z', name: 'summary', extension: 'pdf', file: 'summary-2026-11-24.pdf' },
    { at: '2027-01-01T00:00:00.000Z', name: 'transactions', extension: 'csv', file: 'transactions-2027-01-01.csv' },
  ])('$at → $file', ({ at, name, extension, file }) => {
    expect(exportFilename(name, extension, new Date(at))).toBe(file);
  });

  describe('over HTTP, at a fixed clock just before midnight UTC', () => {
    let t: TestApp;
    let admin: Session;
    beforeAll(async () => {
      t = await buildTestApp({ now: () => new Date('2026-11-24T23:59:30.000Z') });
      admin = await t.admin();
    });
    afterAll(async () => {
      await t?.close();
    });

    it.each([
      { route: '/api/export/licenses/csv', file: 'licenses-2026-11-24.csv' },
      { route: '/api/export/licenses/pdf', file: 'licenses-2026-11-24.pdf' },
      { route: '/api/export/transactions/csv', file: 'transactions-2026-11-24.csv' },
      { route: '/api/export/summary/pdf', file: 'summary-2026-11-24.pdf' },
    ])('$route is named $file', async ({ route, file }) => {
      const res = await t.http
        .get(route)
        .set('Cookie', admin.cookie)
        .buffer(true)
        .parse((stream, done) => {
          stream.on('data', () => undefined);
          stream.on('end', () => done(null, null));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe(`attachment; filename="${file}"`);
    });
  });
});
