import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseBackend } from '@app/db/testing';
import { createLogger } from '@app/http';
import { text } from 'node:stream/consumers';
import { keyCheck, newKey, open, seal, type Envelope } from '../../../packages/paste-cli/src/envelope.js';
import {
  decryptFileStream,
  encryptedFileSize,
  encryptFileStream,
  fileKeyMaterial,
} from '../../../packages/paste-cli/src/file-stream.js';
import { OWNER_ID, startTestSite, type TestSite } from './helpers.js';

// Nothing readable on the server (decisions.md, wave 3): after an encrypted paste holding a unique
// marker is created and viewed in every way there is, the marker is in no table and no log line,
// while a plain paste's marker, as a control, is found by the same search. The key check of wave
// 4 changes nothing: the server gets the key's verifier, never the key, and stores only its hash
// (the verifier itself is in no table and no log line either). Wave 4's attachments: a file whose
// bytes and name hold the marker, encrypted in chunks with the paste's key, leaves the marker in
// no table, no log line and no object of the store (read back whole), while the reader decrypts it.

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/** Every row of every table outside the system schemas, as text: what a dump of the data holds. */
async function everyRowAsText(site: TestSite): Promise<string> {
  const { rows: tables } = await site.database.pool.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['pastes', 'paste_session', 'paste_stats']));
  const parts: string[] = [];
  for (const { schema, name } of tables) {
    const { rows } = await site.database.pool.query<{ row: string }>(
      `SELECT t::text AS row FROM "${schema}"."${name}" t`,
    );
    parts.push(`-- ${schema}.${name}\n${rows.map((row) => row.row).join('\n')}`);
  }
  return parts.join('\n');
}

/** pg_dump of the test database (data only), on a PostgreSQL server when the tool is installed. */
async function pgDump(site: TestSite): Promise<string | undefined> {
  if (site.database.mode !== 'server') return undefined;
  try {
    const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', '--no-owner', site.database.url], {
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

describe(`an encrypted paste leaves nothing readable on the server (${testDatabaseBackend()})`, () => {
  const logText: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      logText.push(String(chunk));
      callback();
    },
  });
  let site: TestSite;
  beforeAll(async () => {
    site = await startTestSite(undefined, { logger: createLogger({ level: 'trace', destination, name: 'paste' }) });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('after creating (from the form, with a password, and through the API) and viewing it, the marker is in no table and no log', async () => {
    const marker = `marker-${randomUUID()}`;
    const control = `control-${randomUUID()}`;
    const key = newKey();
    const check = await keyCheck(key);

    // The site's own form: a web request with the session's CSRF token, then the creator's page.
    const page = await site.pageSession();
    const envelope = await seal({ content: `secret ${marker}`, title: `title ${marker}`, language: 'markdown' }, key, {
      password: `pw-${marker}`,
    });
    const created = await site.http
      .post('/api/paste')
      .set('Cookie', page.cookie)
      .set('X-CSRF-Token', page.csrf)
      .send({ encrypted: envelope, password: `pw-${marker}`, maxViews: 5 });
    expect(created.status).toBe(200);
    const { slug } = created.body;
    expect((await site.http.get(`/paste/${slug}/created`).set('Cookie', page.cookie)).status).toBe(200);

    // An API paste without a password, viewed by page, raw, preview and HEAD.
    const apiEnvelope = await seal({ content: `api ${marker}` }, key);
    const apiPaste = await site.http.post('/api/paste').send({ encrypted: apiEnvelope, revealOnClick: true });
    const apiSlug = apiPaste.body.slug as string;
    await site.http.get(`/paste/${apiSlug}`).set('User-Agent', 'Slackbot-LinkExpanding 1.0');
    await site.http.head(`/paste/${apiSlug}`);
    await site.http.get(`/paste/${apiSlug}`).set('User-Agent', CHROME);
    expect((await site.http.post(`/paste/${apiSlug}/raw`).send({})).status).toBe(403);
    expect((await site.http.post(`/paste/${apiSlug}/raw`).set('X-Paste-Key-Check', 'wrong').send({})).status).toBe(403);
    const revealed = await site.http.post(`/paste/${apiSlug}/raw`).set('X-Paste-Key-Check', check).send({});
    expect((await open(revealed.body as Envelope, key)).content).toBe(`api ${marker}`);

    // The password paste: a wrong guess, the unlock, the page, the raw view and the reveal path.
    await site.http.post(`/paste/${slug}/verify`).send({ password: 'wrong' });
    const unlocked = await site.http
      .post(`/paste/${slug}/verify`)
      .set('Cookie', page.cookie)
      .send({ password: `pw-${marker}` });
    expect(unlocked.status).toBe(200);
    const shown = await site.http.get(`/paste/${slug}`).set('Cookie', page.cookie).set('User-Agent', CHROME);
    expect(shown.status).toBe(200);
    const raw = await site.http.get(`/paste/${slug}/raw`).set('Cookie', page.cookie).set('X-Paste-Key-Check', check);
    expect((await open(raw.body as Envelope, key, `pw-${marker}`)).content).toBe(`secret ${marker}`);
    const posted = await site.http
      .post(`/paste/${slug}/raw`)
      .set('X-Paste-Key-Check', check)
      .send({ password: `pw-${marker}` });
    expect(posted.status).toBe(200);

    // A file: its name (inside the envelope) and its bytes (encrypted in chunks) hold the marker.
    const fileKey = newKey();
    const fileText = `file body ${marker} `.repeat(5000);
    const withFile = await site.http.post('/api/paste').send({
      encrypted: await seal(
        { content: 'see the file', files: [{ name: `name-${marker}.txt`, type: 'text/plain' }] },
        fileKey,
      ),
      attachments: [{ size: encryptedFileSize(Buffer.byteLength(fileText)) }],
    });
    expect(withFile.status).toBe(200);
    const material = await fileKeyMaterial(fileKey);
    const sealed = Buffer.from(
      await new Response(new Blob([fileText]).stream().pipeThrough(encryptFileStream(material))).arrayBuffer(),
    );
    const uploaded = await fetch(withFile.body.attachments[0].uploadUrl, { method: 'PUT', body: sealed });
    expect(uploaded.status).toBe(200);
    const completed = await site.http
      .post(`/api/paste/${withFile.body.slug}/complete`)
      .set('X-Delete-Token', withFile.body.deleteToken);
    expect(completed.status).toBe(200);
    const read = await site.http
      .get(`/paste/${withFile.body.slug}/raw`)
      .set('X-Paste-Key-Check', await keyCheck(fileKey));
    const readEnvelope = read.body as Envelope & { attachments: Array<{ url: string }> };
    expect((await open(readEnvelope, fileKey)).files).toEqual([{ name: `name-${marker}.txt`, type: 'text/plain' }]);
    const downloaded = await fetch(readEnvelope.attachments[0]!.url);
    expect(await new Response(downloaded.body!.pipeThrough(decryptFileStream(material))).text()).toBe(fileText);

    // The owner's list and statistics read it too.
    const owner = await site.session(OWNER_ID);
    expect((await site.http.get('/api/pastes').set('Cookie', owner.cookie)).status).toBe(200);
    expect((await site.http.get('/admin').set('Cookie', owner.cookie)).status).toBe(200);

    // The control: a plain paste's text is stored readable, so the same searches find it.
    await site.createPaste({ content: `plain ${control}` });
    await new Promise((resolve) => setTimeout(resolve, 50));

    const rows = await everyRowAsText(site);
    expect(rows).toContain(control);
    expect(rows).not.toContain(marker);
    const dump = await pgDump(site);
    if (dump !== undefined) {
      expect(dump).toContain(control);
      expect(dump).not.toContain(marker);
    }
    // Every object of the store, read back whole: ciphertext only.
    let objects = 0;
    for await (const object of site.objects.list('')) {
      objects += 1;
      expect(await text(await site.objects.get(object.key))).not.toContain(marker);
    }
    expect(objects).toBe(1);
    const log = logText.join('');
    expect(log).toContain(`/paste/${slug}`);
    expect(log).not.toContain(marker);
    // The key never reaches the server, so it cannot be stored or logged either; its verifier
    // reaches it, and is neither stored (only its hash) nor logged.
    expect(rows).not.toContain(key);
    expect(log).not.toContain(key);
    expect(rows).not.toContain(check);
    expect(log).not.toContain(check);
    expect(log).toContain('[redacted]');
  });
});
