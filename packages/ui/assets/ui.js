// The shared page script: the theme choice (remembered in localStorage), the in-page
// confirmation dialog (window.ui.confirmDialog, and data-ui-confirm on forms and buttons) and
// copy-to-clipboard buttons. Loaded as a file in <head> (the Content-Security-Policy allows no
// inline script), so the chosen theme applies before the page paints.
(function () {
  'use strict';
  var KEY = 'ui-theme';
  var root = document.documentElement;

  function stored() {
    try {
      return localStorage.getItem(KEY);
    } catch (e) {
      return null;
    }
  }
  function apply(theme) {
    if (theme === 'light' || theme === 'dark') root.setAttribute('data-theme', theme);
    else root.removeAttribute('data-theme');
  }
  function current() {
    var chosen = root.getAttribute('data-theme');
    if (chosen) return chosen;
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  apply(stored());

  // The page's words for this script, in its language (ui/head writes them as JSON; English
  // when a page has none).
  var messages = {
    themeToDark: 'Switch to the dark theme',
    themeToLight: 'Switch to the light theme',
    cancel: 'Cancel',
    confirm: 'Confirm',
    copied: 'Copied',
    copyFailed: 'Copy failed',
  };
  try {
    var given = JSON.parse(document.getElementById('ui-messages').textContent);
    for (var name in given) if (typeof given[name] === 'string') messages[name] = given[name];
  } catch (e) {
    /* no messages on this page: English */
  }

  function label(button) {
    var text = current() === 'dark' ? messages.themeToLight : messages.themeToDark;
    button.setAttribute('aria-label', text);
    button.setAttribute('title', text);
    button.setAttribute('aria-pressed', current() === 'dark' ? 'true' : 'false');
  }

  // The in-page confirmation dialog, for markup (data-ui-confirm, below) and for page scripts:
  //   window.ui.confirmDialog('Delete paste abc? This cannot be undone.', { button: 'Delete' })
  //     .then(function (ok) { if (ok) ... });
  // options: button (the confirming button's text, default "Confirm"), style ('danger', the
  // default, or 'primary'). Resolves true on the confirming button, false on Cancel or Escape.
  // A modal <dialog>: it takes the focus (on Cancel, the safe choice), Tab and Shift+Tab go
  // round its two buttons only, Escape closes it, and the focus goes back where it was.
  function confirmDialog(question, options) {
    options = options || {};
    var opener = document.activeElement;
    return new Promise(function (resolve) {
      var confirmed = false;
      var dialog = document.createElement('dialog');
      dialog.className = 'dialog';
      dialog.setAttribute('aria-labelledby', 'ui-confirm-text');
      dialog.setAttribute('aria-modal', 'true');
      var text = document.createElement('p');
      text.id = 'ui-confirm-text';
      text.textContent = question;
      var actions = document.createElement('div');
      actions.className = 'dialog-actions';
      var cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.className = 'button button-ghost';
      cancel.textContent = messages.cancel;
      var ok = document.createElement('button');
      ok.type = 'button';
      ok.className = 'button ' + (options.style === 'primary' ? '' : 'button-danger');
      ok.textContent = options.button || messages.confirm;
      actions.appendChild(cancel);
      actions.appendChild(ok);
      dialog.appendChild(text);
      dialog.appendChild(actions);
      document.body.appendChild(dialog);
      dialog.addEventListener('close', function () {
        dialog.remove();
        if (opener && opener.focus && document.contains(opener)) opener.focus();
        resolve(confirmed);
      });
      // showModal() already keeps the page behind inert; this keeps Tab off the browser's own UI too.
      dialog.addEventListener('keydown', function (event) {
        if (event.key !== 'Tab') return;
        var last = event.shiftKey ? cancel : ok;
        if (document.activeElement === last || !dialog.contains(document.activeElement)) {
          event.preventDefault();
          (event.shiftKey ? ok : cancel).focus();
        }
      });
      cancel.addEventListener('click', function () {
        dialog.close();
      });
      ok.addEventListener('click', function () {
        confirmed = true;
        dialog.close();
      });
      dialog.showModal();
      cancel.focus();
    });
  }
  window.ui = window.ui || {};
  window.ui.confirmDialog = confirmDialog;

  // A form or button with data-ui-confirm="Question?" asks in a dialog before it goes ahead
  // (data-ui-confirm-button: the button's text; data-ui-confirm-style="primary": not red).
  function confirmFirst(event) {
    var element = event.currentTarget;
    if (element.dataset.uiConfirmed === 'yes') {
      element.dataset.uiConfirmed = '';
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    confirmDialog(element.getAttribute('data-ui-confirm'), {
      button: element.getAttribute('data-ui-confirm-button'),
      style: element.getAttribute('data-ui-confirm-style'),
    }).then(function (ok) {
      if (!ok) return;
      element.dataset.uiConfirmed = 'yes';
      if (element.tagName === 'FORM') {
        if (element.requestSubmit) element.requestSubmit();
        else element.submit();
      } else {
        element.click();
      }
    });
  }

  // A button with data-copy="text" puts the text on the clipboard and says so on the button
  // for two seconds (also to screen readers: the button's text is what changes).
  function copyText(event) {
    var button = event.currentTarget;
    var label = button.getAttribute('data-copy-label') || button.textContent;
    button.setAttribute('data-copy-label', label);
    function show(text) {
      button.textContent = text;
      clearTimeout(button.uiCopyTimer);
      button.uiCopyTimer = setTimeout(function () {
        button.textContent = label;
      }, 2000);
    }
    if (!navigator.clipboard || !navigator.clipboard.writeText) {
      show(messages.copyFailed);
      return;
    }
    navigator.clipboard.writeText(button.getAttribute('data-copy')).then(
      function () {
        show(messages.copied);
      },
      function () {
        show(messages.copyFailed);
      },
    );
  }

  // The fields an error message names (data-fields, from ui/flash) say they are invalid and
  // point at the message, so a screen reader on the field hears why; the first one takes the
  // focus unless something else has it, so the keyboard is where the correction goes.
  function markRefusedFields() {
    var first = null;
    Array.prototype.forEach.call(document.querySelectorAll('.alert[data-fields]'), function (alert) {
      alert
        .getAttribute('data-fields')
        .split(' ')
        .forEach(function (name) {
          Array.prototype.forEach.call(document.getElementsByName(name), function (field) {
            if (field.type === 'hidden') return;
            field.setAttribute('aria-invalid', 'true');
            var described = field.getAttribute('aria-describedby');
            field.setAttribute('aria-describedby', (described ? described + ' ' : '') + alert.id);
            first = first || field;
          });
        });
    });
    if (first && (!document.activeElement || document.activeElement === document.body)) first.focus();
  }

  // A language link leads to /language, which redirects back to the page. The page's #fragment
  // (an encrypted paste's key) is not in the link and never reaches the server; navigating to the
  // link with the fragment after it lets the browser carry it over the redirect (one without a
  // fragment of its own keeps the request's), so the paste reloads still readable.
  function keepFragment(event) {
    if (!window.location.hash || event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    window.location.assign(event.currentTarget.href + window.location.hash);
  }

  document.addEventListener('DOMContentLoaded', function () {
    markRefusedFields();
    Array.prototype.forEach.call(document.querySelectorAll('a[data-language-switch]'), function (link) {
      link.addEventListener('click', keepFragment);
    });
    Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
      button.setAttribute('aria-live', 'polite');
      button.addEventListener('click', copyText);
    });
    Array.prototype.forEach.call(document.querySelectorAll('[data-theme-toggle]'), function (button) {
      button.hidden = false;
      label(button);
      button.addEventListener('click', function () {
        var next = current() === 'dark' ? 'light' : 'dark';
        apply(next);
        try {
          localStorage.setItem(KEY, next);
        } catch (e) {
          /* private mode: for this page only */
        }
        label(button);
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll('form[data-ui-confirm]'), function (form) {
      form.addEventListener('submit', confirmFirst);
    });
    Array.prototype.forEach.call(
      document.querySelectorAll('button[data-ui-confirm], a[data-ui-confirm]'),
      function (button) {
        button.addEventListener('click', confirmFirst);
      },
    );
  });
})();
