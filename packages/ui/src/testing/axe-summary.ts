import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { auditFolder } from './axe.js';

// The browser suite's global setup: at the end of the run, how many pages the accessibility
// audit covered in how many themes, and how many violations it found (each audit's file in
// artifacts/axe/, written by auditPage; files of earlier runs are left out by their time).

interface Audit {
  name: string;
  url: string;
  themes: string[];
  violations: number;
  at: number;
}

export default function setup(): () => void {
  const start = Date.now();
  return () => {
    if (!existsSync(auditFolder)) return;
    const audits = readdirSync(auditFolder)
      .filter((file) => file.endsWith('.json') && file !== 'summary.json')
      .map((file) => JSON.parse(readFileSync(path.join(auditFolder, file), 'utf8')) as Audit)
      .filter((audit) => audit.at >= start);
    if (!audits.length) return;
    const summary = {
      standard: 'WCAG 2.1 AA',
      pages: audits.length,
      themes: 2,
      audits: audits.length * 2,
      violations: audits.reduce((sum, audit) => sum + audit.violations, 0),
      pagesWithViolations: audits.filter((audit) => audit.violations).map((audit) => audit.name),
    };
    writeFileSync(
      path.join(auditFolder, 'summary.json'),
      `${JSON.stringify({ ...summary, names: audits.map((audit) => audit.name).sort() }, null, 2)}\n`,
    );
    process.stdout.write(
      `axe-core, ${summary.standard}: ${summary.pages} pages x ${summary.themes} themes, ${summary.violations} violations\n`,
    );
  };
}
