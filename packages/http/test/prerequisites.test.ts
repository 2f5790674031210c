import { chmodSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { findChromium, requireForTests } from '../src/testing/index.js';

const folder = mkdtempSync(path.join(os.tmpdir(), 'find-chromium-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function executable(relative: string): string {
  const file = path.join(folder, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  return file;
}

describe('findChromium', () => {
  it('takes CHROMIUM_PATH first, when it is an executable file', () => {
    const chosen = executable('custom/my-chromium');
    const onPath = executable('bin-a/chromium');
    expect(findChromium({ CHROMIUM_PATH: chosen, PATH: path.dirname(onPath) })).toEqual({ path: chosen });
  });

  it('reports a CHROMIUM_PATH that is no executable file instead of looking elsewhere', () => {
    const onPath = executable('bin-b/chromium');
    expect(findChromium({ CHROMIUM_PATH: folder, PATH: path.dirname(onPath) })).toEqual({
      missing: `CHROMIUM_PATH=${folder} is not an executable file`,
    });
  });

  it('treats CHROMIUM_PATH=none as no Chromium at all, with what to install', () => {
    const onPath = executable('bin-c/chromium');
    const found = findChromium({ CHROMIUM_PATH: 'none', PATH: path.dirname(onPath) });
    expect(found).toEqual({
      missing: "CHROMIUM_PATH=none: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH",
    });
  });

  it('finds chromium, then chromium-browser, along the PATH in order', () => {
    const browserOnly = executable('bin-d/chromium-browser');
    const plain = executable('bin-e/chromium');
    const PATH = [path.join(folder, 'empty'), path.dirname(browserOnly), path.dirname(plain)].join(path.delimiter);
    expect(findChromium({ PATH })).toEqual({ path: plain });
    expect(findChromium({ PATH: path.dirname(browserOnly) })).toEqual({ path: browserOnly });
  });

  it('skips a non-executable file named chromium on the PATH', () => {
    const file = path.join(folder, 'bin-f/chromium');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, 'not a program');
    const found = findChromium({ PATH: path.dirname(file) });
    expect(found).not.toEqual({ path: file });
  });
});

describe('requireForTests', () => {
  const ci = process.env.CI;
  afterEach(() => {
    if (ci === undefined) delete process.env.CI;
    else process.env.CI = ci;
    vi.restoreAllMocks();
  });

  it('says nothing and answers true when nothing is missing', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(requireForTests('browser tests', undefined)).toBe(true);
    expect(write).not.toHaveBeenCalled();
  });

  it('outside CI prints one skip line naming the tests and the reason, and answers false', () => {
    delete process.env.CI;
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(requireForTests('browser tests', 'no Chromium found')).toBe(false);
    expect(write.mock.calls).toEqual([['skipped: browser tests (no Chromium found)\n']]);
  });

  it('under CI=true fails instead of skipping', () => {
    process.env.CI = 'true';
    expect(() => requireForTests('browser tests', 'no Chromium found')).toThrow(
      'browser tests cannot run: no Chromium found (CI=true requires it)',
    );
  });
});
