// Page behaviour for the paste service. Served as a static file: the Content-Security-Policy
// allows no inline scripts.
(function () {
  'use strict';

  var form = document.getElementById('paste-form');
  if (form) setUpCreateForm(form);

  var copy = document.getElementById('copy-button');
  if (copy) setUpCopyButton(copy);

  function setUpCreateForm(form) {
    var errorBox = document.getElementById('form-error');
    var submit = document.getElementById('submit');

    function showError(message) {
      errorBox.textContent = message;
      errorBox.hidden = false;
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      errorBox.hidden = true;
      var content = form.elements.content.value;
      if (content.trim() === '') {
        showError('Content cannot be empty');
        return;
      }
      var body = { content: content };
      var maxViews = form.elements.maxViews.value.trim();
      var password = form.elements.password.value;
      if (maxViews !== '') body.maxViews = Number(maxViews);
      if (password !== '') body.password = password;

      submit.disabled = true;
      submit.textContent = 'Creating…';
      fetch('/api/csrf-token', { credentials: 'same-origin' })
        .then(function (response) { return response.json(); })
        .then(function (token) {
          return fetch('/api/paste', {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token.csrfToken },
            body: JSON.stringify(body),
          });
        })
        .then(function (response) {
          return response.json().catch(function () { return {}; }).then(function (data) {
            if (response.ok && data.url) {
              window.location.assign(data.url);
              return;
            }
            if (response.status === 429) showError('Too many requests: ' + (data.error || 'rate limit exceeded') + '. Please try again later.');
            else showError(data.error || 'Could not create the paste (status ' + response.status + ').');
            if (data.details) {
              var fields = Object.keys(data.details).map(function (key) { return key + ': ' + data.details[key]; });
              showError(errorBox.textContent + ' ' + fields.join('; '));
            }
          });
        })
        .catch(function () { showError('Could not reach the server. Please try again.'); })
        .finally(function () {
          submit.disabled = false;
          submit.textContent = 'Create paste';
        });
    });
  }

  function setUpCopyButton(button) {
    button.addEventListener('click', function () {
      var code = document.getElementById(button.getAttribute('data-target'));
      var text = code ? code.textContent : '';
      var done = function () {
        button.textContent = 'Copied';
        setTimeout(function () { button.textContent = 'Copy'; }, 1500);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
      } else {
        fallbackCopy(text);
        done();
      }
    });
  }

  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'absolute';
    area.style.left = '-9999px';
    document.body.appendChild(area);
    area.select();
    try { document.execCommand('copy'); } catch (ignored) { /* nothing more to try */ }
    document.body.removeChild(area);
  }
})();
