// The new-paste form's encryption: app.js (a classic script, for every browser) calls the shared
// format (envelope.js, the same file the command line runs) through window.pasteEnvelope, which
// exists only where modules and WebCrypto do.
import * as envelope from './envelope.js';

if (window.isSecureContext && window.crypto && window.crypto.subtle) window.pasteEnvelope = envelope;
document.dispatchEvent(new Event('paste-envelope-ready'));
