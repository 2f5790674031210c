// License Service pages: the panic switch, the two-factor forms and a customer's release buttons. Served as a file because
// the Content-Security-Policy allows no inline script. Every write sends the session's CSRF token.
(function () {
  'use strict';

  async function csrfToken() {
    const res = await fetch('/api/csrf-token', { headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error('Could not get a CSRF token (HTTP ' + res.status + ').');
    return (await res.json()).csrfToken;
  }

  async function request(method, url, body) {
    const headers = { Accept: 'application/json' };
    if (method !== 'GET') {
      headers['Content-Type'] = 'application/json';
      headers['X-CSRF-Token'] = await csrfToken();
    }
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let data = {};
    try {
      data = await res.json();
    } catch {
      /* not JSON */
    }
    if (!res.ok || data.success === false) throw new Error(data.error || 'Request failed (HTTP ' + res.status + ').');
    return data;
  }

  /** The kit's in-page dialog (ui.js), as on every console page; the browser's own only if ui.js is missing. */
  function confirmDialog(question, button) {
    if (window.ui && window.ui.confirmDialog) return window.ui.confirmDialog(question, { button });
    return Promise.resolve(window.confirm(question));
  }

  function showError(scope, error) {
    const box = scope.querySelector('[data-error]');
    if (!box) return;
    box.textContent = error ? error.message || String(error) : '';
    box.hidden = !error;
  }

  /** Disables the button while `work` runs and shows its error next to it. */
  async function busy(button, scope, work) {
    button.disabled = true;
    showError(scope, null);
    try {
      await work();
    } catch (error) {
      showError(scope, error);
    } finally {
      button.disabled = false;
    }
  }

  const panicButton = document.getElementById('panic-toggle');
  if (panicButton) {
    panicButton.addEventListener('click', async () => {
      const enable = panicButton.dataset.enabled !== 'true';
      if (
        enable &&
        !(await confirmDialog(
          'Turn panic mode on? Validation and the customer API will answer 503 until it is turned off.',
          'Turn panic mode on',
        ))
      )
        return;
      busy(panicButton, document.getElementById('panic'), async () => {
        await request('POST', '/api/admin/panic', { enabled: enable });
        window.location.reload();
      });
    });
  }

  // A customer frees an IP address or hardware id of their license; the page reloads to show the
  // new lists, and says once that it worked (the message survives the reload in sessionStorage).
  const releasedKey = 'license-portal-released';
  const releasedBox = document.querySelector('[data-success]');
  const released = releasedBox && window.sessionStorage.getItem(releasedKey);
  if (released) {
    window.sessionStorage.removeItem(releasedKey);
    releasedBox.textContent = released;
    releasedBox.hidden = false;
  }
  for (const button of document.querySelectorAll('button[data-release-kind]')) {
    button.addEventListener('click', async () => {
      const kind = button.dataset.releaseKind;
      const value = button.dataset.releaseValue;
      const what = kind === 'ip' ? 'IP address' : 'hardware id';
      if (
        !(await confirmDialog(
          'Release the ' + what + ' ' + value + '? Its place on this license becomes free for another computer.',
          'Release',
        ))
      )
        return;
      busy(button, button.closest('section') || document.body, async () => {
        await request('POST', button.dataset.releaseUrl, kind === 'ip' ? { ip: value } : { hwid: value });
        window.sessionStorage.setItem(
          releasedKey,
          'Released: ' +
            (kind === 'ip' ? 'IP address ' : 'hardware id ') +
            value +
            '. Its place on this license is free for another computer.',
        );
        window.location.reload();
      });
    });
  }

  const verifyForm = document.getElementById('two-factor-verify');
  if (verifyForm) {
    verifyForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const code = verifyForm.elements.namedItem('code').value.trim();
      // Authenticator codes are six digits; anything else is taken as a backup code.
      const body = /^\d{6}$/.test(code) ? { token: code } : { backupCode: code };
      busy(verifyForm.querySelector('button'), verifyForm, async () => {
        await request('POST', '/api/2fa/verify', body);
        window.location.reload();
      });
    });
  }

  const setup = document.getElementById('two-factor-setup');
  if (setup) {
    const start = document.getElementById('two-factor-setup-start');
    start.addEventListener('click', () =>
      busy(start, setup, async () => {
        const data = await request('GET', '/api/2fa/setup');
        document.getElementById('two-factor-qr').src = data.qrCode;
        document.getElementById('two-factor-secret').textContent = data.secret;
        document.getElementById('two-factor-setup-secret').hidden = false;
        start.hidden = true;
      }),
    );
    const enableForm = document.getElementById('two-factor-enable');
    enableForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const token = enableForm.elements.namedItem('code').value.trim();
      busy(enableForm.querySelector('button'), setup, async () => {
        const data = await request('POST', '/api/2fa/enable', { token });
        const list = document.getElementById('two-factor-backup-codes');
        list.replaceChildren(
          ...data.backupCodes.map((code) => {
            const item = document.createElement('li');
            item.textContent = code;
            return item;
          }),
        );
        document.getElementById('two-factor-setup-secret').hidden = true;
        document.getElementById('two-factor-setup-intro').hidden = true;
        document.getElementById('two-factor-backup').hidden = false;
      });
    });
    document.getElementById('two-factor-continue').addEventListener('click', () => window.location.reload());
  }
})();
