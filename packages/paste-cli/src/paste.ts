#!/usr/bin/env node
// `paste`: end-to-end encrypted pastes from a terminal (README.md). Exit status 0 on success,
// 1 when the server refuses or the paste cannot be decrypted, 2 for a mistaken call.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { stat } from 'node:fs/promises';
import { get, put, remove, type Io } from './commands.js';
import { localFiles } from './files.js';
import {
  CommandError,
  expiresInSeconds,
  parseLink,
  readPasswordFile,
  serverAddress,
  UsageError,
  viewLimit,
} from './options.js';

const USAGE = `Usage:
  paste put [FILE|-] [--server URL] [--views N] [--expires 10m|1h|1d|1w|1mo|SECONDS]
            [--password-file F] [--title T] [--language L] [--plain] [--api-key KEY]
            [--attach FILE]...
  paste get LINK [--password-file F] [--out DIR]
  paste delete LINK TOKEN

put encrypts FILE (or standard input) unless --plain, uploads it and prints the link, with its
key after '#', on standard output and the delete token on standard error. --attach adds a file
of any kind and size (up to 10; encrypted in chunks with the paste's key unless --plain); with
--attach and no FILE the paste's text is empty. get --out DIR writes the paste's files into DIR.
--server defaults to PASTE_URL, then http://localhost:8080; --api-key to PASTE_API_KEY.
`;

async function readInput(file: string | undefined): Promise<string> {
  let bytes: Buffer;
  if (file === undefined || file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    bytes = Buffer.concat(chunks);
  } else {
    try {
      bytes = await readFile(file);
    } catch (error) {
      throw new UsageError(`Cannot read ${file}: ${(error as Error).message}`);
    }
  }
  try {
    // A paste holds text: bytes that are not UTF-8 could not come back byte for byte.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CommandError(
      `${file === undefined || file === '-' ? 'The input' : file} is not UTF-8 text: a paste holds text`,
    );
  }
}

/** `--out DIR` must be a folder that exists: checked before the view is spent. */
async function checkFolder(folder: string): Promise<void> {
  try {
    if ((await stat(folder)).isDirectory()) return;
  } catch {
    // Reported below.
  }
  throw new UsageError(`--out ${folder}: not a folder`);
}

async function main(argv: string[], io: Io): Promise<void> {
  // A delete token is base64url and may begin with '-', which parseArgs would read as an option:
  // `delete LINK TOKEN` takes its two arguments as they are.
  if (argv[0] === 'delete' && argv.length === 3) {
    await remove(io, parseLink(argv[1]!), argv[2]!, process.env.PASTE_API_KEY || undefined);
    return;
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      server: { type: 'string' },
      views: { type: 'string' },
      expires: { type: 'string' },
      'password-file': { type: 'string' },
      title: { type: 'string' },
      language: { type: 'string' },
      plain: { type: 'boolean' },
      'api-key': { type: 'string' },
      attach: { type: 'string', multiple: true },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === 'help') {
    io.stdout(USAGE);
    return;
  }
  const password = values['password-file'] === undefined ? undefined : await readPasswordFile(values['password-file']);
  const apiKey = values['api-key'] ?? (process.env.PASTE_API_KEY || undefined);
  if (command === 'put') {
    if (rest.length > 1) throw new UsageError('put takes one FILE (or - for standard input)');
    const files = await localFiles(values.attach ?? []);
    // With files and no FILE, the paste is its files: standard input is not read.
    const content = files.length > 0 && rest[0] === undefined ? '' : await readInput(rest[0]);
    // The server's own words for it; an encrypted paste's server cannot look inside to check.
    if (content.trim() === '' && files.length === 0) throw new CommandError('Content cannot be empty');
    await put(io, {
      server: serverAddress(values.server, process.env),
      content,
      password,
      apiKey,
      plain: values.plain === true,
      maxViews: values.views === undefined ? undefined : viewLimit(values.views),
      expiresIn: values.expires === undefined ? undefined : expiresInSeconds(values.expires),
      title: values.title,
      language: values.language,
      files,
    });
    return;
  }
  if (command === 'get') {
    if (rest.length !== 1) throw new UsageError('get takes one LINK');
    if (values.out !== undefined) await checkFolder(values.out);
    await get(io, parseLink(rest[0]!), password, values.out);
    return;
  }
  if (command === 'delete') {
    if (rest.length !== 2) throw new UsageError('delete takes a LINK and its delete TOKEN');
    await remove(io, parseLink(rest[0]!), rest[1]!, apiKey);
    return;
  }
  throw new UsageError(command === undefined ? 'Say what to do: put, get or delete' : `Unknown command "${command}"`);
}

const io: Io = {
  fetch: globalThis.fetch,
  stdout: (bytes) => {
    process.stdout.write(bytes);
  },
  stderr: (text) => {
    process.stderr.write(text);
  },
};

main(process.argv.slice(2), io).catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`paste: ${(error as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (error instanceof CommandError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  process.stderr.write(`paste: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
