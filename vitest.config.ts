// `npm test`: every test except the slow and browser suites (see vitest.shared.ts).
import { suiteConfig } from './vitest.shared.js';

export default suiteConfig('fast');
