import { createRequire } from 'node:module';
import path from 'node:path';

// Found through the package's own name, not this file's folder: an app's build bundles this
// code into the app's dist/main.js, from where `@app/ui` still resolves to this package.
export const packageRoot = path.dirname(createRequire(import.meta.url).resolve('@app/ui/package.json'));
