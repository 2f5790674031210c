import { describe, expect, it } from 'vitest';
import { isReadOnlyStatement, retryTransient, transientKind, uniqueViolation } from '../src/index.js';

const failure = (fields: Record<string, unknown>) =>
  Object.assign(new Error(typeof fields.message === 'string' ? fields.message : 'failed'), fields);

describe('transient database failures', () => {
  it.each([
    { name: 'a serialization failure', error: failure({ code: '40001' }), kind: 'rolled-back' },
    { name: 'a deadlock', error: failure({ code: '40P01' }), kind: 'rolled-back' },
    { name: 'a terminated backend (pg_terminate_backend)', error: failure({ code: '57P01' }), kind: 'rolled-back' },
    { name: 'a refused connection', error: failure({ code: 'ECONNREFUSED' }), kind: 'not-sent' },
    {
      name: 'a connection that closed under a query',
      error: failure({ message: 'Connection terminated unexpectedly' }),
      kind: 'ambiguous',
    },
    { name: 'a connection failure reported by the server', error: failure({ code: '08006' }), kind: 'ambiguous' },
    { name: 'a unique violation', error: failure({ code: '23505' }), kind: undefined },
    { name: 'a bug', error: new TypeError('x is undefined'), kind: undefined },
  ])('classifies $name as $kind', ({ error, kind }) => {
    expect(transientKind(error)).toBe(kind);
  });

  it('names the constraint of a unique violation', () => {
    expect(uniqueViolation(failure({ code: '23505', constraint: 'customers_user_id_idx' }))).toBe(
      'customers_user_id_idx',
    );
    expect(uniqueViolation(failure({ code: '23503', constraint: 'x' }))).toBeUndefined();
  });

  it('repeats work once after a failure that proves nothing committed, and only once', async () => {
    let calls = 0;
    expect(
      await retryTransient(() => {
        calls += 1;
        return calls === 1 ? Promise.reject(failure({ code: '57P01' })) : Promise.resolve('done');
      }),
    ).toBe('done');
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      retryTransient(() => {
        calls += 1;
        return Promise.reject(failure({ code: '40P01' }));
      }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(calls).toBe(2);
  });

  it('repeats work after a lost connection only when it is repeatable (a write may have committed)', async () => {
    let calls = 0;
    const lost = () => {
      calls += 1;
      return Promise.reject(failure({ message: 'Connection terminated unexpectedly' }));
    };
    await expect(retryTransient(lost)).rejects.toThrow('Connection terminated unexpectedly');
    expect(calls).toBe(1);
    await expect(retryTransient(lost, { repeatable: true })).rejects.toThrow();
    expect(calls).toBe(3);
  });

  it('never repeats other errors', async () => {
    let calls = 0;
    await expect(
      retryTransient(() => {
        calls += 1;
        return Promise.reject(failure({ code: '23505' }));
      }),
    ).rejects.toThrow();
    expect(calls).toBe(1);
  });
});

describe('read-only statements (repeated after a lost connection)', () => {
  it.each([
    'SELECT * FROM pastes WHERE slug = $1',
    '  -- a comment\n SELECT count(*) FROM licenses l WHERE l.customer_id = $1',
    'WITH recent AS (SELECT * FROM usage_records) SELECT count(*) FROM recent',
    'SELECT m.email FROM unnest($1::text[]) AS m(email)',
  ])('reads: %s', (sql) => expect(isReadOnlyStatement(sql)).toBe(true));

  it.each([
    'SELECT * FROM license_validate_batch($1::text[], $2::text[], $3::text[], $4::timestamptz)',
    'UPDATE pastes SET views_count = views_count + 1 WHERE slug = $1 RETURNING *',
    'WITH inserted AS (INSERT INTO pastes (slug) VALUES ($1) RETURNING slug) SELECT slug FROM inserted',
    'SELECT id FROM licenses WHERE key = $1 FOR UPDATE',
    "SELECT nextval('s')",
    'SELECT pg_advisory_lock(1)',
    'SET LOCAL synchronous_commit = off; UPDATE pastes SET views_count = 1',
    'SELECT 1; SELECT 2',
  ])('writes (or may): %s', (sql) => expect(isReadOnlyStatement(sql)).toBe(false));
});
