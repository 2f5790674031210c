/* global XMLHttpRequest */
// The Releases page (admin console): uploads a file to a draft release from the browser. It
// computes the file's SHA-256, asks the API for the artifact and its upload URL, sends the bytes
// there with a progress bar, then asks the service to check them (size and SHA-256) and reloads.
// Served as a file (a module): the Content-Security-Policy allows no inline script.
import { sha256 } from './vendor/noble-hashes/sha2.js';
import { bytesToHex } from './vendor/noble-hashes/utils.js';

/** Read and hashed this much at a time: memory stays bounded whatever the file's size. */
const HASH_PIECE_BYTES = 1024 * 1024;

/**
 * The file's SHA-256 in lower-case hex, read in pieces (File.slice) and hashed incrementally;
 * `onProgress` gets the share read so far (0 to 1). WebCrypto's digest would need the whole
 * file in memory at once.
 */
async function sha256Of(file, onProgress) {
  const hash = sha256.create();
  for (let start = 0; start < file.size; start += HASH_PIECE_BYTES) {
    const end = Math.min(start + HASH_PIECE_BYTES, file.size);
    hash.update(new Uint8Array(await file.slice(start, end).arrayBuffer()));
    onProgress(end / file.size);
  }
  return bytesToHex(hash.digest());
}

{
  for (const form of document.querySelectorAll('form[data-artifact-upload]')) {
    const status = form.querySelector('[data-upload-status]');
    const progressField = form.querySelector('[data-upload-progress]');
    const progress = progressField.querySelector('progress');
    const say = (text) => {
      status.textContent = text;
    };
    const api = async (path, body) => {
      const res = await fetch(path, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': form.getAttribute('data-csrf') },
        body: JSON.stringify(body || {}),
      });
      const answer = await res.json().catch(() => ({}));
      if (!res.ok) throw new Error(answer.error || 'The service refused (' + res.status + ')');
      return answer;
    };
    const put = (url, file) =>
      new Promise((resolve, reject) => {
        const request = new XMLHttpRequest();
        request.open('PUT', url);
        request.upload.addEventListener('progress', (event) => {
          if (event.lengthComputable) progress.value = Math.round((event.loaded / event.total) * 100);
        });
        request.addEventListener('load', () =>
          request.status >= 200 && request.status < 300
            ? resolve()
            : reject(new Error('Upload refused (' + request.status + ')')),
        );
        request.addEventListener('error', () => reject(new Error('Upload failed: the connection broke')));
        request.send(file);
      });
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const file = form.elements.file.files[0];
      if (!file) return say('Choose a file first.');
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        const hashing = 'Computing the SHA-256 of ' + file.name + '…';
        say(hashing);
        const digest = await sha256Of(file, (share) => say(hashing + ' ' + Math.floor(share * 100) + '%'));
        const base = form.getAttribute('data-artifact-upload');
        const added = await api(base + '/artifacts', {
          filename: file.name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, ''),
          platform: form.elements.platform.value.trim(),
          arch: form.elements.arch.value.trim(),
          size: file.size,
          sha256: digest,
          ...(form.elements.signature.value.trim() ? { signature: form.elements.signature.value.trim() } : {}),
        });
        progressField.hidden = false;
        say('Uploading ' + file.name + '…');
        await put(added.uploadUrl, file);
        say('Checking the upload…');
        await api(base + '/artifacts/' + added.artifact._id + '/complete');
        say('Uploaded ' + file.name + '.');
        window.location.reload();
      } catch (error) {
        say(error.message);
        button.disabled = false;
      }
    });
  }
}
