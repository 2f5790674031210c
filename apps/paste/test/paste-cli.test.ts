import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { keyHash } from '../../../packages/paste-cli/src/envelope.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// The `paste` command line (packages/paste-cli) as people run it: a child process, against the
// paste service listening on a real port. Compiled once to one JavaScript file, as the bin of an
// installed package runs (tsx would spend seconds of each run compiling); one scenario runs the
// TypeScript source through tsx, as `npm run paste` does.

const root = path.resolve(import.meta.dirname, '../../..');
const entry = path.join(root, 'packages/paste-cli/src/paste.ts');

let site: TestSite;
let folder: string;
let compiled: string;
beforeAll(async () => {
  site = await startTestSite();
  folder = mkdtempSync(path.join(os.tmpdir(), 'paste-cli-'));
  compiled = path.join(folder, 'paste.mjs');
  await build({
    entryPoints: [entry],
    outfile: compiled,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
});
afterAll(async () => {
  await site?.close();
  rmSync(folder, { recursive: true, force: true });
});
beforeEach(async () => {
  await site.reset();
});

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs `paste ARGS` with PASTE_URL set to the test site; `input` goes to its standard input. */
function paste(
  args: string[],
  options: { input?: string | Buffer; env?: Record<string, string>; source?: boolean } = {},
): Promise<Run> {
  const command = options.source ? ['--import', 'tsx', entry] : [compiled];
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...command, ...args],
      {
        cwd: root,
        encoding: 'buffer',
        env: { ...process.env, PASTE_URL: site.baseUrl, PASTE_API_KEY: '', ...options.env },
      },
      (error, stdout, stderr) => {
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr: stderr.toString('utf8'),
        });
      },
    );
    child.stdin!.end(options.input ?? '');
  });
}

const file = (name: string, content: string | Buffer) => {
  const at = path.join(folder, name);
  writeFileSync(at, content);
  return at;
};

const linkOf = (run: Run) => run.stdout.toString('utf8').trim();
const tokenOf = (run: Run) => /^Delete token: (\S+)$/m.exec(run.stderr)?.[1] ?? '';
const stored = async (link: string) =>
  (
    await site.database.pool.query(
      'SELECT content, encrypted, max_views, expires_at, views_count FROM pastes WHERE slug = $1',
      [new URL(link).pathname.split('/').at(-1)],
    )
  ).rows[0];

// Each scenario starts a few Node processes: seconds apiece on a busy machine.
describe(`the paste command line against a running service (${testDatabaseBackend()})`, { timeout: 120_000 }, () => {
  it('put encrypts a file, prints the link with its key and the delete token; get writes it back byte for byte', async () => {
    const content = Buffer.from(
      '\uFEFFfirst line\r\n  indented\ttab  \nGrüße 🙂 <b>&amp;</b>\n\n\nno final newline',
      'utf8',
    );
    const put = await paste(['put', file('note.txt', content)]);
    expect(put.code, put.stderr).toBe(0);
    const link = linkOf(put);
    expect(link).toMatch(new RegExp(`^${site.baseUrl}/paste/[A-Za-z0-9]{8}#[A-Za-z0-9_-]{43}$`));
    expect(tokenOf(put)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await stored(link);
    expect(row.encrypted).toBe(true);
    expect(row.content).not.toContain('first line');
    // The key check (wave 4): put stores the hash of the key's verifier, never the key.
    const key = link.split('#')[1]!;
    expect(JSON.parse(row.content).keyHash).toBe(await keyHash(key));
    expect(row.content).not.toContain(key);

    const get = await paste(['get', link]);
    expect(get.code, get.stderr).toBe(0);
    expect(Buffer.compare(get.stdout, content)).toBe(0);
  });

  it('put --attach (repeatable) encrypts files in chunks; get --out DIR writes them byte for byte under their names', async () => {
    const binary = randomBytes(200_000);
    const put = await paste(
      [
        'put',
        '-',
        '--attach',
        file('data.bin', binary),
        '--attach',
        file('empty.txt', ''),
        '--password-file',
        file('pw-attach', 'secret pw\n'),
      ],
      { input: 'with files' },
    );
    expect(put.code, put.stderr).toBe(0);
    const link = linkOf(put);
    // The names are inside the envelope: the server has sizes only.
    const { rows } = await site.database.pool.query('SELECT name, size FROM paste_attachments ORDER BY position');
    expect(rows.map((row) => row.name)).toEqual([null, null]);
    expect(Number(rows[0].size)).toBeGreaterThan(binary.length);
    const out = path.join(folder, 'out-encrypted');
    mkdirSync(out);
    const get = await paste(['get', link, '--out', out, '--password-file', path.join(folder, 'pw-attach')]);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout.toString()).toBe('with files');
    expect(readdirSync(out).sort()).toEqual(['data.bin', 'empty.txt']);
    expect(readFileSync(path.join(out, 'data.bin')).equals(binary)).toBe(true);
    expect(readFileSync(path.join(out, 'empty.txt')).length).toBe(0);

    // Plain: the name is stored; a paste of files alone reads no standard input.
    const plain = await paste(['put', '--plain', '--attach', file('plain.bin', binary.subarray(0, 1000))]);
    expect(plain.code, plain.stderr).toBe(0);
    const plainOut = path.join(folder, 'out-plain');
    mkdirSync(plainOut);
    const plainGet = await paste(['get', linkOf(plain), '--out', plainOut]);
    expect(plainGet.code, plainGet.stderr).toBe(0);
    expect(readFileSync(path.join(plainOut, 'plain.bin')).equals(binary.subarray(0, 1000))).toBe(true);
    // --out must be a folder (checked before the view is spent); a missing file to attach is a usage error.
    expect((await paste(['get', linkOf(plain), '--out', path.join(folder, 'nope')])).code).toBe(2);
    expect((await paste(['put', '--attach', path.join(folder, 'missing.bin')])).code).toBe(2);
  });

  it("a one-view paste from standard input reads once; the used-up link exits 1 with the server's text", async () => {
    const put = await paste(['put', '-', '--views', '1'], { input: 'read me once\n' });
    expect(put.code, put.stderr).toBe(0);
    expect((await stored(linkOf(put))).max_views).toBe(1);
    const first = await paste(['get', linkOf(put)]);
    expect([first.code, first.stdout.toString()]).toEqual([0, 'read me once\n']);
    const again = await paste(['get', linkOf(put)]);
    expect([again.code, again.stdout.length, again.stderr]).toEqual([1, 0, 'Paste expired\n']);
  });

  it('a wrong, missing or malformed key exits 1 saying so, and spends none of the one view', async () => {
    const put = await paste(['put', '-', '--views', '1'], { input: 'keyed' });
    const link = linkOf(put);
    const wrong = await paste(['get', `${link.split('#')[0]}#${'A'.repeat(43)}`]);
    expect([wrong.code, wrong.stdout.length, wrong.stderr]).toEqual([
      1,
      0,
      'Wrong key: the key in this link (the part after "#") does not open the paste\n',
    ]);
    const keyless = await paste(['get', link.split('#')[0]!]);
    expect([keyless.code, keyless.stderr]).toEqual([
      1,
      'This link is missing its key (the part after "#"): ask the sender for the whole link\n',
    ]);
    const malformed = await paste(['get', `${link.split('#')[0]}#short`]);
    expect([malformed.code, malformed.stderr]).toEqual([1, 'Cannot decrypt: wrong key or damaged paste\n']);
    expect((await stored(link)).views_count).toBe(0);
    const right = await paste(['get', link]);
    expect([right.code, right.stdout.toString()]).toEqual([0, 'keyed']);
    expect((await stored(link)).views_count).toBe(1);
  });

  it('with --password-file the password goes into the key and to the server, which checks it as before', async () => {
    const password = file('password', 'correct horse\n');
    const put = await paste(['put', '-', '--password-file', password], { input: 'behind a password' });
    expect(put.code, put.stderr).toBe(0);
    const link = linkOf(put);
    expect(JSON.parse((await stored(link)).content).salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const none = await paste(['get', link]);
    expect([none.code, none.stderr]).toEqual([1, 'Password is required\n']);
    const wrong = await paste(['get', link, '--password-file', file('wrong', 'incorrect horse')]);
    expect([wrong.code, wrong.stderr]).toEqual([1, 'Incorrect password\n']);
    const right = await paste(['get', link, '--password-file', password]);
    expect([right.code, right.stdout.toString()]).toEqual([0, 'behind a password']);
  });

  it('--plain makes a paste curl can read, and get reads it too; --expires sets the time limit', async () => {
    const put = await paste(['put', '-', '--plain', '--expires', '1h'], { input: 'for curl' });
    expect(put.code, put.stderr).toBe(0);
    const link = linkOf(put);
    expect(link).not.toContain('#');
    const row = await stored(link);
    expect([row.encrypted, row.content]).toEqual([false, 'for curl']);
    expect(new Date(row.expires_at).getTime() - Date.now()).toBeGreaterThan(3_590_000);
    expect((await site.http.get(`${new URL(link).pathname}/raw`)).text).toBe('for curl');
    const get = await paste(['get', link]);
    expect([get.code, get.stdout.toString()]).toEqual([0, 'for curl']);
  });

  it("delete LINK TOKEN deletes; a wrong token and a deleted paste exit 1 with the server's text", async () => {
    const put = await paste(['put', '-'], { input: 'short-lived' });
    const link = linkOf(put);
    const wrong = await paste(['delete', link, 'not-the-token']);
    expect([wrong.code, wrong.stderr]).toEqual([1, 'Invalid delete token\n']);
    const deleted = await paste(['delete', link, tokenOf(put)]);
    expect(deleted.code, deleted.stderr).toBe(0);
    const gone = await paste(['get', link]);
    expect([gone.code, gone.stderr]).toEqual([1, 'Paste not found\n']);
  });

  it('where the owner requires API keys, put needs PASTE_API_KEY (or --api-key)', async () => {
    await site.reset({ webRateLimit: 1_000_000, apiRateLimit: 1_000_000, apiKeyProtection: true });
    const refused = await paste(['put', '-'], { input: 'keyless' });
    expect([refused.code, refused.stderr]).toEqual([1, 'API key required\n']);
    const owner = await site.session(OWNER_ID);
    const key = (
      await site.http
        .post('/api/settings/api-keys')
        .set('Cookie', owner.cookie)
        .set('X-CSRF-Token', owner.csrf)
        .send({ name: 'cli' })
    ).body.apiKey.key as string;
    const accepted = await paste(['put', '-'], { input: 'with a key', env: { PASTE_API_KEY: key } });
    expect(accepted.code, accepted.stderr).toBe(0);
    const flag = await paste(['put', '-', '--api-key', key], { input: 'with a key' });
    expect(flag.code, flag.stderr).toBe(0);
  });

  it.each([
    { name: 'empty input', args: ['put', '-'], input: ' \n', code: 1, stderr: 'Content cannot be empty\n' },
    {
      name: 'input that is not UTF-8',
      args: ['put', '-'],
      input: Buffer.from([0xff, 0xfe, 0x00]),
      code: 1,
      stderr: 'The input is not UTF-8 text: a paste holds text\n',
    },
    {
      name: 'a bad --expires',
      args: ['put', '-', '--expires', '2y'],
      input: 'x',
      code: 2,
      stderr: /--expires takes 10m, 1h, 1d, 1w, 1mo or a number of seconds/,
    },
    {
      name: "a link that is not a paste's",
      args: ['get', 'https://example.com/elsewhere'],
      input: '',
      code: 2,
      stderr: /Not a paste link/,
    },
    { name: 'an unknown command', args: ['post'], input: '', code: 2, stderr: /Unknown command "post"/ },
  ])('$name exits $code with a clear message', async ({ args, input, code, stderr }) => {
    const run = await paste(args, { input });
    expect(run.code).toBe(code);
    if (typeof stderr === 'string') expect(run.stderr).toBe(stderr);
    else expect(run.stderr).toMatch(stderr);
    expect(run.stdout.length).toBe(0);
  });

  it('--server overrides PASTE_URL; a server that does not answer exits 1 saying so', async () => {
    const run = await paste(['put', '-', '--server', 'http://127.0.0.1:9'], { input: 'nowhere' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Cannot reach http:\/\/127\.0\.0\.1:9: /);
    // From the TypeScript source, as `npm run paste -- put` runs it.
    const ok = await paste(['put', '-', '--server', site.baseUrl], {
      input: 'here',
      env: { PASTE_URL: 'http://127.0.0.1:9' },
      source: true,
    });
    expect(ok.code, ok.stderr).toBe(0);
    expect(linkOf(ok)).toMatch(new RegExp(`^${site.baseUrl}/paste/`));
    expect(readFileSync(path.join(root, 'package.json'), 'utf8')).toContain(
      '"paste": "tsx packages/paste-cli/src/paste.ts"',
    );
  });
});
