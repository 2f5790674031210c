import { highlightJs } from './highlight-js.js';

/**
 * The languages a paste may name: `auto` (detect), `plaintext`, `markdown` (rendered), or any
 * language highlight.js registers, by its name or one of its aliases (`js`, `py`, `sh`, ...).
 * All of highlight.js's languages are loaded (not just its common set), so whatever name a
 * creator gives that highlight.js knows is highlighted in it; auto-detection still tries only
 * AUTO_DETECT_LANGUAGES, which keeps its guesses fast and sane.
 */
export const DEFAULT_LANGUAGE = 'auto';

/** highlight.js's common set: what auto-detection tries, and what the web form offers after the three fixed choices. */
export const AUTO_DETECT_LANGUAGES = [
  'bash',
  'c',
  'cpp',
  'csharp',
  'css',
  'diff',
  'dockerfile',
  'go',
  'graphql',
  'ini',
  'java',
  'javascript',
  'json',
  'kotlin',
  'less',
  'lua',
  'makefile',
  'objectivec',
  'perl',
  'php',
  'powershell',
  'python',
  'r',
  'ruby',
  'rust',
  'scss',
  'shell',
  'sql',
  'swift',
  'typescript',
  'vbnet',
  'xml',
  'yaml',
] as const;

// A language object per canonical name, so an alias finds the name it stands for (made at first use).
let canonicalByLanguage: Map<unknown, string> | undefined;

/** The stored name for what a creator typed (any case, alias or name); undefined when nobody knows it. */
export function canonicalLanguage(value: string): string | undefined {
  const name = value.trim().toLowerCase();
  if (name === DEFAULT_LANGUAGE) return DEFAULT_LANGUAGE;
  // highlight.js's own lookup lower-cases and follows aliases; `getLanguage('')` is undefined.
  const hljs = highlightJs();
  const language = hljs.getLanguage(name);
  canonicalByLanguage ??= new Map(hljs.listLanguages().map((known) => [hljs.getLanguage(known), known] as const));
  return language ? canonicalByLanguage.get(language) : undefined;
}

/** Where highlight.js's own name reads oddly in a list ("php" in lower case, "TOML, also INI"). */
const labelOverrides: Record<string, string> = { php: 'PHP', ini: 'TOML/INI' };

/** A language's name for people ("C#", "HTML, XML"). */
export function languageLabel(name: string): string {
  if (name === DEFAULT_LANGUAGE) return 'Auto-detect';
  return labelOverrides[name] ?? highlightJs().getLanguage(name)?.name ?? name;
}

/** The web form's choices: Auto-detect, Plain text, Markdown, then the common languages by name. */
export function languageChoices(): Array<{ value: string; label: string }> {
  const common = AUTO_DETECT_LANGUAGES.map((value) => ({ value, label: languageLabel(value) })).sort((a, b) =>
    a.label.localeCompare(b.label, 'en'),
  );
  return [
    { value: DEFAULT_LANGUAGE, label: 'Auto-detect' },
    { value: 'plaintext', label: 'Plain text' },
    { value: 'markdown', label: 'Markdown' },
    ...common,
  ];
}
