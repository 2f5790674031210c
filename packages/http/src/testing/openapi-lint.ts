import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** One finding of Redocly's lint: which rule, where, what. */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  /** JSON pointers into the document. */
  where: string[];
}

/**
 * Lints an OpenAPI document as outside tools read it: Redocly CLI's `lint` with its recommended
 * ruleset, on the document written to a file, run as its own process (the root devDependency
 * `@redocly/cli`). No telemetry and no update check leave the machine.
 */
export async function lintOpenApi(document: unknown): Promise<LintProblem[]> {
  const cli = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
    'bin',
    'cli.js',
  );
  const folder = await mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(folder, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    // Exit code 1 on errors: the report is on stdout either way.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, 'lint', file, '--extends=recommended', '--format=json'],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 32 * 1024 * 1024,
      },
    ).catch((failure: Error & { stdout?: string; stderr?: string }) => {
      if (!failure.stdout) throw new Error(`redocly lint did not run: ${failure.stderr || failure.message}`);
      return { stdout: failure.stdout };
    });
    const report = JSON.parse(stdout) as {
      problems: Array<{
        ruleId: string;
        severity: 'error' | 'warn';
        message: string;
        location: Array<{ pointer: string }>;
      }>;
    };
    return report.problems.map((problem) => ({
      ruleId: problem.ruleId,
      severity: problem.severity,
      message: problem.message,
      where: problem.location.map((location) => location.pointer),
    }));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
