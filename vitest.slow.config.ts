// `npm run test:slow`: tests slow by nature, files named `*.slow.test.ts` (see vitest.shared.ts).
import { suiteConfig } from './vitest.shared.js';

export default suiteConfig('slow');
