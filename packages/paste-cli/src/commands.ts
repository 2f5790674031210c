import {
  DecryptError,
  KEY_CHECK_HEADER,
  keyCheck,
  needsPassword,
  newKey,
  open,
  seal,
  type Envelope,
} from './envelope.js';
import path from 'node:path';
import { fileKeyMaterial } from './file-stream.js';
import { downloadFile, safeFileName, uploadFile, uploadSize, type LocalFile } from './files.js';
import { CommandError, type PasteLink } from './options.js';

/** What the commands need from outside: the network and the standard streams. */
export interface Io {
  fetch: typeof fetch;
  stdout: (bytes: Uint8Array | string) => void;
  stderr: (text: string) => void;
}

export interface PutRequest {
  server: string;
  content: string;
  maxViews?: number;
  expiresIn?: number;
  password?: string;
  title?: string;
  language?: string;
  plain: boolean;
  apiKey?: string;
  /** `--attach` files: uploaded (encrypted unless `plain`) before the paste is completed. */
  files?: LocalFile[];
}

/** The server's error text: `error` of a JSON answer (with its details), or a plain-text answer. */
async function failure(response: Response): Promise<CommandError> {
  const text = await response.text();
  let message = text.trim();
  try {
    const body = JSON.parse(text) as { error?: unknown; details?: Record<string, string> };
    if (typeof body.error === 'string') {
      message = [body.error, ...Object.values(body.details ?? {}).map((line) => `  ${line}`)].join('\n');
    }
  } catch {
    // Not JSON: the text as it came.
  }
  return new CommandError(message || `The server answered ${response.status} ${response.statusText}`);
}

async function send(io: Io, url: string, init: RequestInit): Promise<Response> {
  try {
    return await io.fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new CommandError(`Cannot reach ${new URL(url).origin}: ${cause ?? (error as Error).message}`);
  }
}

const authorization = (apiKey: string | undefined): Record<string, string> =>
  apiKey ? { Authorization: `Bearer ${apiKey}` } : {};

/**
 * Uploads through the public API (an API request: apiAccess and, where the owner requires one, an
 * API key apply). Encrypted unless `plain`: the key goes only into the printed link's fragment.
 * Like the web form, a view limit turns on "reveal on click", so a chat's link preview never
 * uses a view. Prints the link on stdout and the delete token on stderr.
 */
export async function put(io: Io, request: PutRequest): Promise<void> {
  const limits = {
    maxViews: request.maxViews,
    expiresIn: request.expiresIn,
    password: request.password,
    revealOnClick: request.maxViews !== undefined ? true : undefined,
  };
  let body: Record<string, unknown>;
  let key: string | undefined;
  let encrypted: Envelope | undefined;
  const files = request.files ?? [];
  if (request.plain) {
    body = { content: request.content, title: request.title, language: request.language, ...limits };
  } else {
    key = newKey();
    // The files' names travel inside the envelope; the server sees only their sizes.
    const payload = { content: request.content, title: request.title, language: request.language };
    encrypted = await seal(
      files.length > 0 ? { ...payload, files: files.map((file) => ({ name: file.name })) } : payload,
      key,
      {
        password: request.password,
      },
    );
    body = { encrypted, ...limits };
  }
  if (files.length > 0) {
    body.attachments = files.map((file) => ({
      size: uploadSize(file, !request.plain),
      ...(request.plain ? { name: file.name } : {}),
    }));
  }
  const response = await send(io, `${request.server}/api/paste`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...authorization(request.apiKey) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  const created = (await response.json()) as {
    slug: string;
    deleteToken: string;
    attachments?: Array<{ id: string; uploadUrl: string }>;
  };
  if (files.length > 0) {
    const material =
      key === undefined ? undefined : await fileKeyMaterial(key, { password: request.password, salt: encrypted?.salt });
    for (const [index, file] of files.entries()) {
      await uploadFile(created.attachments![index]!.uploadUrl, file, material);
      io.stderr(`Uploaded ${file.name} (${file.size} bytes)\n`);
    }
    const completed = await send(io, `${request.server}/api/paste/${created.slug}/complete`, {
      method: 'POST',
      headers: { 'X-Delete-Token': created.deleteToken, Accept: 'application/json', ...authorization(request.apiKey) },
    });
    if (!completed.ok) throw await failure(completed);
  }
  io.stdout(`${request.server}/paste/${created.slug}${key ? `#${key}` : ''}\n`);
  io.stderr(`Delete token: ${created.deleteToken}\n`);
}

/** What the link's key proves without leaving this machine: its verifier for X-Paste-Key-Check. */
async function keyCheckHeader(key: string | undefined): Promise<Record<string, string>> {
  if (key === undefined) return {};
  try {
    return { [KEY_CHECK_HEADER]: await keyCheck(key) };
  } catch (error) {
    // Not a key at all: no request could open the paste with it.
    if (error instanceof DecryptError) throw new CommandError(error.message);
    throw error;
  }
}

/**
 * Reads a paste with one counted view: `POST /paste/:slug/raw` serves every paste (reveal on click
 * or not) and takes the password in its body. With a key in the link, its key check goes along
 * (the key itself never does), so the server counts the view of an encrypted paste. An encrypted
 * paste answers its envelope as JSON, opened here with the link's key; a plain one its text,
 * written as it came.
 */
export async function get(io: Io, link: PasteLink, password: string | undefined, outDir?: string): Promise<void> {
  const response = await send(io, `${link.server}/paste/${link.slug}/raw`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/plain',
      ...(await keyCheckHeader(link.key)),
    },
    body: JSON.stringify(password === undefined ? {} : { password }),
  });
  if (!response.ok) {
    const refused = await failure(response);
    // The key check failed (no view was counted): say what is wrong with the link.
    if (refused.message === 'Wrong key')
      throw new CommandError(
        link.key === undefined
          ? 'This link is missing its key (the part after "#"): ask the sender for the whole link'
          : 'Wrong key: the key in this link (the part after "#") does not open the paste',
      );
    throw refused;
  }
  if (!/^application\/json\b/i.test(response.headers.get('content-type') ?? '')) {
    io.stdout(new Uint8Array(await response.arrayBuffer()));
    return;
  }
  const answer = (await response.json()) as (Envelope | { content: string }) & { attachments?: Attachment[] };
  const attachments = answer.attachments ?? [];
  if ('content' in answer && typeof answer.content === 'string') {
    // A plain paste with its files listed.
    io.stdout(new TextEncoder().encode(answer.content));
    await saveFiles(io, attachments, (index) => attachments[index]?.name, undefined, outDir);
    return;
  }
  const envelope = answer as Envelope;
  if (link.key === undefined) throw new CommandError(new DecryptError().message);
  try {
    const usedPassword = needsPassword(envelope) ? password : undefined;
    const opened = await open(envelope, link.key, usedPassword);
    io.stdout(new TextEncoder().encode(opened.content));
    const material =
      attachments.length > 0 && outDir !== undefined
        ? await fileKeyMaterial(link.key, { password: usedPassword, salt: envelope.salt })
        : undefined;
    await saveFiles(io, attachments, (index) => opened.files?.[index]?.name, material, outDir);
  } catch (error) {
    if (error instanceof DecryptError) throw new CommandError(error.message);
    throw error;
  }
}

/** A file as a counted view lists it; `url` works for 10 minutes. */
interface Attachment {
  id: string;
  size: number;
  url: string;
  name?: string;
}

/**
 * Writes a paste's files into `outDir` byte for byte (decrypted with `material` when given),
 * under their names; without `outDir`, says there are files and how to get them.
 */
async function saveFiles(
  io: Io,
  attachments: Attachment[],
  nameOf: (index: number) => string | undefined,
  material: Uint8Array | undefined,
  outDir: string | undefined,
): Promise<void> {
  if (attachments.length === 0) return;
  if (outDir === undefined) {
    const names = attachments.map((_file, index) => safeFileName(nameOf(index), index)).join(', ');
    io.stderr(
      `${attachments.length} attached file(s): ${names}; this view has spent their links, so use --out DIR next time\n`,
    );
    return;
  }
  const used = new Set<string>();
  for (const [index, file] of attachments.entries()) {
    let name = safeFileName(nameOf(index), index);
    // Two files of one name: the second gets its position.
    if (used.has(name)) name = `${index + 1}-${name}`;
    used.add(name);
    const target = path.join(outDir, name);
    const written = await downloadFile(io.fetch, file.url, target, material);
    io.stderr(`Saved ${target} (${written} bytes)\n`);
  }
}

/** Deletes a paste with its delete token (the owner's API key, when given, is sent too). */
export async function remove(io: Io, link: PasteLink, token: string, apiKey: string | undefined): Promise<void> {
  const response = await send(io, `${link.server}/api/paste/${link.slug}`, {
    method: 'DELETE',
    headers: { 'X-Delete-Token': token, Accept: 'application/json', ...authorization(apiKey) },
  });
  if (!response.ok) throw await failure(response);
  io.stderr(`Paste ${link.slug} deleted\n`);
}
