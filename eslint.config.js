// ESLint (flat config): the recommended JavaScript rules plus typescript-eslint's type-checked
// rules over every TypeScript file tsconfig.json includes (`npm run lint`, zero warnings allowed).
// `npm run lint` caches each file's result by content in node_modules/.cache/eslint: a first run
// takes about a minute on 2 cores, a re-run lints only the files that changed (2 s). A cached file
// is not linted again when only a type it imports changed; CI lints a fresh clone, all of it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Globals are listed by hand (the few each kind of plain script uses) rather than through the
// `globals` package, which would be one more dependency for a handful of names.
const nodeGlobals = {
  process: 'readonly',
  console: 'readonly',
  URL: 'readonly',
  Blob: 'readonly',
  fetch: 'readonly',
  AbortSignal: 'readonly',
  WebAssembly: 'readonly',
};
const browserGlobals = {
  window: 'readonly',
  document: 'readonly',
  navigator: 'readonly',
  localStorage: 'readonly',
  fetch: 'readonly',
  FormData: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  DOMParser: 'readonly',
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.start-*/**',
      'data/**',
      '**/data/**',
      'artifacts/**',
      'coverage/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A rest sibling is how an object is copied without some of its fields (`{ id, ...rest }`).
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // The plain JavaScript files (build and start-up scripts, the pages' browser scripts) sit outside
    // tsconfig.json, so they get the JavaScript rules without type information.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.mjs', 'eslint.config.js'],
    languageOptions: { sourceType: 'module', globals: nodeGlobals },
  },
  {
    files: ['packages/ui/assets/**/*.js', 'apps/*/public/**/*.js', 'apps/*/src/**/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: browserGlobals },
    rules: {
      // ui.js and app.js keep to ES5 (var, no arrows) for old browsers, where `catch` needs a binding.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, caughtErrors: 'none' }],
    },
  },
  {
    // The license console's Releases page script: an ES module (it imports @noble/hashes).
    files: ['apps/license/src/dashboard/assets/releases.js'],
    languageOptions: { sourceType: 'module' },
  },
  {
    // ES modules that browsers load (the encrypted paste's page) and that the paste command line
    // runs in Node too (envelope.js): WebCrypto and the encoding globals both have.
    files: [
      'apps/*/public/**/*.mjs',
      'apps/paste/public/paste-view.js',
      'apps/paste/public/paste-form.js',
      'packages/paste-cli/src/envelope.js',
      'packages/paste-cli/src/file-stream.js',
    ],
    languageOptions: {
      sourceType: 'module',
      globals: {
        ...browserGlobals,
        crypto: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        atob: 'readonly',
        btoa: 'readonly',
        Event: 'readonly',
        globalThis: 'readonly',
        TransformStream: 'readonly',
      },
    },
  },
  {
    // Tests read supertest's `response.body` and similar library values, typed `any`, and check them
    // against the declared response schemas field by field; typing each body first would add a cast to
    // every assertion and check nothing more. So only the no-unsafe-* family is off there; the promise
    // rules (no-floating-promises, no-misused-promises, require-await) and the rest stay on.
    files: ['**/test/**', '**/*.test.ts', '**/testing/**', '**/bench/**', 'scripts/bench/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
