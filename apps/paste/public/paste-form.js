// The new-paste form's encryption: app.js (a classic script, for every browser) calls the shared
// format (envelope.js, the same file the command line runs) through window.pasteEnvelope, which
// exists only where modules and WebCrypto do; attached files through window.pasteFiles (file-stream.js).
import * as envelope from './envelope.js';
import * as fileStream from './file-stream.js';

if (window.isSecureContext && window.crypto && window.crypto.subtle) {
  window.pasteEnvelope = envelope;
  // The chunked format of attached files (the same file the command line runs).
  window.pasteFiles = fileStream;
}
document.dispatchEvent(new Event('paste-envelope-ready'));
