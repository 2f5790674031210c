import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const checkLinks = (folder?: string) =>
  spawnSync(process.execPath, [path.join(root, 'scripts/check-links.mjs'), ...(folder ? [folder] : [])], {
    encoding: 'utf8',
  });

describe('links in the READMEs and docs/', () => {
  it('every relative link of the project resolves to a file of the project', () => {
    const result = checkLinks();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^checked \d+ relative links in \d+ markdown files: all resolve/);
  });

  describe('in a project with dead links', () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'check-links-'));
    afterAll(() => rmSync(project, { recursive: true, force: true }));
    mkdirSync(path.join(project, 'docs'));
    mkdirSync(path.join(project, 'apps/one'), { recursive: true });
    writeFileSync(path.join(project, 'docs/guide.md'), '# Guide\n\n## Deploy steps\n');
    writeFileSync(
      path.join(project, 'README.md'),
      [
        '# Project',
        'See [the guide](docs/guide.md), [its deploy steps](docs/guide.md#deploy-steps) and [the site](https://example.com).',
        'Also [a missing page](docs/missing.md), [a missing heading](docs/guide.md#upgrades) and `../shared/DESIGN.md`.',
        '```',
        '[not a link in a code block](nowhere.md)',
        '```',
      ].join('\n'),
    );
    writeFileSync(
      path.join(project, 'apps/one/README.md'),
      '[up](../../README.md) [gone](../two/README.md)\n\n[ref]: ../../docs/nothing.md\n',
    );

    it('fails and names each dead link, its file and why', () => {
      const result = checkLinks(project);
      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines[0]).toBe('Broken links (5 of 8 in 3 files):');
      expect(lines.slice(1).sort()).toEqual([
        '  - README.md: ../shared/DESIGN.md (no such file in the project)',
        '  - README.md: docs/guide.md#upgrades (no heading "#upgrades" in docs/guide.md)',
        '  - README.md: docs/missing.md (no such file in the project)',
        '  - apps/one/README.md: ../../docs/nothing.md (no such file in the project)',
        '  - apps/one/README.md: ../two/README.md (no such file in the project)',
      ]);
    });
  });
});
