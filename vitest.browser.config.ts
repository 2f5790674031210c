// `npm run test:browser`: the pages in Debian's chromium, files named `*browser.test.ts`.
import { suiteConfig } from './vitest.shared.js';

export default suiteConfig('browser');
