import { createRequire } from 'node:module';
import type { HLJSApi } from 'highlight.js';

let loaded: HLJSApi | undefined;

/**
 * highlight.js, loaded at its first use (a paste created or shown): its 193 grammars are 6 MB of
 * an idle service's heap and 86 ms of its start, and the common ones it compiles for detection
 * 7 MB more (docs/performance.md). The first paste shown after a start waits about 0.2 s for both.
 */
export function highlightJs(): HLJSApi {
  loaded ??= createRequire(import.meta.url)('highlight.js') as HLJSApi;
  return loaded;
}
