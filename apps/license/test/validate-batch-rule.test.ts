import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodes } from '../src/common/error-codes.js';
import { createTestDatabase, testDatabaseBackend } from '@app/db/testing';
import { verdictCodes } from '../src/licenses/license-verdicts.js';
import { migrationsFolder } from './helpers.js';

// validate-batch.sql is the readable source of the validation rule; the migrations are the
// history that put it into the database. These checks keep the two the same, and the verdicts
// the function answers in the one catalogue of error texts.

const ruleFile = path.resolve(import.meta.dirname, '../src/validation/validate-batch.sql');
const source = readFileSync(ruleFile, 'utf8');
/** The license's state verdict both rules read (license-state.sql): its texts are the rule's too. */
const stateSource = readFileSync(path.resolve(import.meta.dirname, '../src/licenses/license-state.sql'), 'utf8');
/** What PostgreSQL keeps as the function's source: the text between the dollar quotes. */
const body = /\bAS \$\$([\s\S]*)\$\$;\s*$/.exec(source)?.[1];
/** The settings of its SET clauses, as PostgreSQL lists them (`name=value`). */
const settings = [
  ...(/\bLANGUAGE plpgsql ([^$]*)\bAS \$\$/.exec(source)?.[1] ?? '').matchAll(/\bSET (\w+) = (\w+)/g),
].map(([, name, value]) => `${name}=${value}`);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase(migrationsFolder);
});
afterAll(async () => {
  await database?.close();
});

describe(`the validation rule in SQL (${testDatabaseBackend()})`, () => {
  it('the license_validate_batch_v3 function of a migrated database is exactly the body and settings of validate-batch.sql', async () => {
    expect(body).toBeDefined();
    const { rows } = await database.pool.query<{ prosrc: string; proconfig: string[] | null; args: string }>(
      `SELECT prosrc, proconfig, pg_get_function_identity_arguments(oid) AS args FROM pg_proc WHERE proname = 'license_validate_batch_v3'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.prosrc).toBe(body);
    expect(rows[0]!.proconfig).toEqual(settings);
    expect(source).toContain(
      `license_validate_batch_v3(${rows[0]!.args.replace(/timestamp with time zone/g, 'timestamptz')})`,
    );
  });

  it("the previous releases' license_validate_batch_v2 stays in the database and answers its columns", async () => {
    // Instances of the release before this one call it during a rolling upgrade (validate-batch.sql).
    const { rows } = await database.pool.query<{ n: number; error: string | null }>(
      'SELECT * FROM license_validate_batch_v2($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz)',
      [['NO-SUCH-KEY'], [null], [null], [null], new Date()],
    );
    expect(rows).toEqual([expect.objectContaining({ n: 1, error: 'License not found', product_id: null })]);
  });

  it("the previous release's license_validate_batch stays in the database and still answers its own columns", async () => {
    // Instances of the previous release call it during a rolling upgrade (validate-batch.sql).
    const { rows } = await database.pool.query<{ n: number; error: string | null }>(
      'SELECT * FROM license_validate_batch($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz)',
      [['NO-SUCH-KEY'], [null], [null], [null], new Date()],
    );
    expect(rows).toEqual([expect.objectContaining({ n: 1, error: 'License not found' })]);
    expect(Object.keys(rows[0]!)).not.toContain('product_id');
  });

  it("every verdict the function answers (its own and license-state.sql's) is an error of the catalogue with the same text", () => {
    // Verdicts are sentences ('License expired'); the lower-case words are usage statuses ('blocked').
    const verdicts = new Set(
      [...`${body!}${stateSource}`.matchAll(/(?:THEN|error :=) '([A-Z][^']+)'/g)].map((match) => match[1]!),
    );
    expect([...verdicts].sort()).toEqual([...Object.keys(verdictCodes), 'License not found'].sort());
    for (const verdict of verdicts) {
      const code = verdict === 'License not found' ? 'LICENSE_VALIDATION_NOT_FOUND' : verdictCodes[verdict]!;
      expect(errorCodes[code].message).toBe(verdict);
    }
  });
});
