// Checks that every relative link in the project's markdown files (README.md files and docs/)
// points at a file or folder of the project, and that a #fragment into a markdown file names one
// of its headings. `node scripts/check-links.mjs [root]`; exit code 1 lists the broken links.
// The config project's tests run it, so a renamed or removed file cannot leave a dead link.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'));

const isChecked = (file) => path.basename(file) === 'README.md' || file.split('/')[0] === 'docs';

/** The markdown files git tracks; without git (an unpacked archive), the files on disk. */
function markdownFiles() {
  try {
    const tracked = execFileSync(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.md'],
      {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    return tracked
      .split('\0')
      .filter(Boolean)
      .filter(isChecked)
      .filter((file) => existsSync(path.join(root, file)));
  } catch {
    return walk('').filter(isChecked);
  }
}

function walk(folder) {
  return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return ['node_modules', '.git', 'dist', 'data'].includes(entry.name) ? [] : walk(relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

/** Text outside fenced code blocks and inline code, where links are links. */
const prose = (text) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');

/**
 * Targets of inline links and images `[text](target "title")`, of references `[name]: target`,
 * and markdown files named as code with a relative path (`../docs/x.md`: a page a reader is sent to).
 */
function linkTargets(text) {
  const body = prose(text);
  const inline = [...body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]);
  const references = [...body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    (match) => match[1],
  );
  const codePaths = [
    ...text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/`(\.\.?\/[^`\s]+\.md(?:#[^`\s]*)?)`/g),
  ].map((match) => match[1]);
  return [...inline, ...references, ...codePaths];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(text) {
  const seen = new Map();
  return new Set(
    [...prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((match) => {
      const slug = match[1]
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      return count ? `${slug}-${count}` : slug;
    }),
  );
}

const files = markdownFiles();
const broken = [];
let checked = 0;
for (const file of files) {
  const text = readFileSync(path.join(root, file), 'utf8');
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...: not files of the project
    checked += 1;
    const [pathPart, fragment] = target.split('#');
    const decoded = decodeURIComponent(pathPart);
    const resolved = decoded ? path.resolve(path.dirname(path.join(root, file)), decoded) : path.join(root, file);
    if (!resolved.startsWith(root) || !existsSync(resolved)) {
      broken.push(`${file}: ${target} (no such file in the project)`);
    } else if (
      fragment &&
      statSync(resolved).isFile() &&
      resolved.endsWith('.md') &&
      !headingAnchors(readFileSync(resolved, 'utf8')).has(fragment.toLowerCase())
    ) {
      broken.push(`${file}: ${target} (no heading "#${fragment}" in ${path.relative(root, resolved)})`);
    }
  }
}

if (broken.length) {
  console.error(
    `Broken links (${broken.length} of ${checked} in ${files.length} files):\n${broken.map((line) => `  - ${line}`).join('\n')}`,
  );
  process.exit(1);
}
console.log(`checked ${checked} relative links in ${files.length} markdown files: all resolve`);
