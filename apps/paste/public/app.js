// Page behaviour for the paste service. Served as a static file: the Content-Security-Policy
// allows no inline scripts.
(function () {
  'use strict';

  // The page's words in its language (window.ui.t reads the layout's #page-messages).
  function t(key, vars) {
    return window.ui.t(key, vars);
  }

  var form = document.getElementById('paste-form');
  if (form) setUpCreateForm(form);

  Array.prototype.forEach.call(document.querySelectorAll('button[data-target]'), setUpCopyButton);

  var deleteForm = document.getElementById('delete-form');
  if (deleteForm) setUpDeleteForm(deleteForm);

  Array.prototype.forEach.call(document.querySelectorAll('form[data-keeps-key]'), keepKeyThroughForm);

  var sharedLink = document.getElementById('paste-link');
  if (sharedLink && sharedLink.hasAttribute('data-encrypted')) addKeyToLink(sharedLink);

  function setUpCreateForm(form) {
    var errorBox = document.getElementById('form-error');
    var submit = document.getElementById('submit');
    var reveal = form.elements.revealOnClick;
    var revealTouched = false;
    var encrypt = form.elements.encrypt;

    // WebCrypto exists only in a secure context (https, or localhost): elsewhere the form says
    // so and makes a plain paste, which the server can read.
    if (encrypt && !(window.isSecureContext && window.crypto && window.crypto.subtle)) {
      encrypt.checked = false;
      encrypt.disabled = true;
      document.getElementById('encrypt-unavailable').hidden = false;
    }

    var files = setUpFiles(form);

    // "Reveal on click" follows the view limit until the creator sets it themselves: a paste
    // with a view limit should not be used up by a chat's link preview.
    if (reveal) {
      reveal.addEventListener('change', function () {
        revealTouched = true;
      });
      form.elements.maxViews.addEventListener('input', function () {
        if (!revealTouched) reveal.checked = form.elements.maxViews.value.trim() !== '';
      });
    }

    // The alert is read out when it appears; the refused fields point at it (aria-describedby)
    // and say they are invalid, so a screen reader on the field hears why.
    function showError(message, fields) {
      errorBox.textContent = message;
      errorBox.hidden = false;
      (fields || []).forEach(function (name) {
        var field = form.elements[name];
        if (!field || !field.setAttribute) return;
        field.setAttribute('aria-invalid', 'true');
        field.setAttribute('aria-describedby', 'form-error');
      });
    }
    function clearErrors() {
      errorBox.hidden = true;
      Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (field) {
        field.removeAttribute('aria-invalid');
        field.removeAttribute('aria-describedby');
      });
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      clearErrors();
      var content = form.elements.content.value;
      var chosen = files.chosen();
      if (content.trim() === '' && chosen.length === 0) {
        showError(t('contentEmpty'), ['content']);
        form.elements.content.focus();
        return;
      }
      var body = { content: content };
      var maxViews = form.elements.maxViews.value.trim();
      var password = form.elements.password.value;
      if (maxViews !== '') body.maxViews = Number(maxViews);
      if (password !== '') body.password = password;
      var expiresIn = form.elements.expiresIn ? form.elements.expiresIn.value : '';
      if (expiresIn !== '') body.expiresIn = Number(expiresIn);
      if (reveal) body.revealOnClick = reveal.checked;
      if (form.elements.title && form.elements.title.value.trim() !== '') body.title = form.elements.title.value.trim();
      if (form.elements.language && form.elements.language.value !== 'auto')
        body.language = form.elements.language.value;

      var encrypting = encrypt && encrypt.checked;
      if (encrypting && (!window.pasteEnvelope || (chosen.length > 0 && !window.pasteFiles))) {
        showError(t('scriptMissing'));
        return;
      }
      var key = '';
      submit.disabled = true;
      submit.textContent = encrypting ? t('encrypting') : t('creating');
      // Encrypted: content, title and language go inside the envelope, and the key only into the link's fragment.
      var sealed = !encrypting
        ? Promise.resolve(body)
        : Promise.resolve().then(function () {
            key = window.pasteEnvelope.newKey();
            var payload = { content: body.content, title: body.title, language: body.language };
            // The files' names and types travel inside the envelope; the server sees their sizes only.
            if (chosen.length > 0)
              payload.files = chosen.map(function (file) {
                return file.type ? { name: file.name, type: file.type } : { name: file.name };
              });
            return window.pasteEnvelope.seal(payload, key, { password: body.password }).then(function (envelope) {
              delete body.content;
              delete body.title;
              delete body.language;
              body.encrypted = envelope;
              return body;
            });
          });
      if (chosen.length > 0) {
        body.attachments = chosen.map(function (file) {
          if (encrypting) return { size: window.pasteFiles.encryptedFileSize(file.size) };
          var declared = { size: file.size, name: file.name };
          if (/^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/.test(file.type)) declared.type = file.type;
          return declared;
        });
      }
      var creator = '';
      sealed
        .then(function () {
          return fetch('/api/csrf-token', { credentials: 'same-origin' });
        })
        .then(function (response) {
          return response.json();
        })
        .then(function (token) {
          return fetch('/api/paste', {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token.csrfToken },
            body: JSON.stringify(body),
          });
        })
        .then(function (response) {
          return response
            .json()
            .catch(function () {
              return {};
            })
            .then(function (data) {
              if (response.ok && data.slug) {
                // The creator's page, not the paste: opening the paste would count a view.
                creator = '/paste/' + encodeURIComponent(data.slug) + '/created' + (key ? '#' + key : '');
                if (!data.attachments) return window.location.assign(creator);
                submit.textContent = t('uploading');
                return files
                  .upload(data, chosen, encrypting ? key : undefined, body.password, body.encrypted)
                  .then(function () {
                    window.location.assign(creator);
                  });
              }
              if (response.status === 429) showError(t('tooMany', { error: data.error || 'rate limit exceeded' }));
              else showError(data.error || t('createFailed', { status: response.status }));
              if (data.details) {
                var fields = Object.keys(data.details).map(function (key) {
                  return key + ': ' + data.details[key];
                });
                showError(errorBox.textContent + ' ' + fields.join('; '), Object.keys(data.details));
              }
            });
        })
        .catch(function (error) {
          showError(error && error.uploadFailed ? error.message : t('unreachable'));
        })
        .finally(function () {
          submit.disabled = false;
          submit.textContent = t('createPaste');
        });
    });
  }

  /**
   * The form's files: chosen with the button or dropped on the form, listed with their sizes (each
   * removable), and uploaded after the paste is created: encrypted in chunks of 64 KiB with the
   * paste's key (file-stream.js), each to its presigned URL, with a progress bar, then the paste is
   * completed. Browsers stream request bodies only over HTTP/2, so each encrypted file is gathered
   * as a Blob of its chunks (which the browser keeps on disk when large) and sent by XMLHttpRequest,
   * whose upload events drive the bar.
   */
  function setUpFiles(form) {
    var input = document.getElementById('files');
    var zone = document.getElementById('file-drop');
    var list = document.getElementById('file-list');
    var statusBox = document.getElementById('upload-status');
    var bar = document.getElementById('upload-progress');
    var label = document.getElementById('upload-label');
    var chosen = [];
    if (!input)
      return {
        chosen: function () {
          return [];
        },
        upload: function () {
          return Promise.resolve();
        },
      };

    function sizeText(bytes) {
      var units = ['B', 'KB', 'MB', 'GB'];
      var value = bytes;
      var unit = 0;
      while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        unit += 1;
      }
      // The number in the page's language ("68,4 KB" in German), the unit symbols as everywhere.
      var digits = unit === 0 ? 0 : 1;
      var number = new Intl.NumberFormat(document.documentElement.lang || 'en', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }).format(value);
      return number + ' ' + units[unit];
    }
    function render() {
      list.textContent = '';
      chosen.forEach(function (file, index) {
        var item = document.createElement('li');
        var name = document.createElement('span');
        name.className = 'file-name';
        name.textContent = file.name;
        var size = document.createElement('span');
        size.className = 'muted small';
        size.textContent = ' ' + sizeText(file.size) + ' ';
        var remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'button button-ghost';
        remove.textContent = t('remove');
        remove.setAttribute('aria-label', t('removeFile', { name: file.name }));
        remove.addEventListener('click', function () {
          chosen.splice(index, 1);
          render();
          input.focus();
        });
        item.appendChild(name);
        item.appendChild(size);
        item.appendChild(remove);
        list.appendChild(item);
      });
      list.hidden = chosen.length === 0;
    }
    function add(fileList) {
      Array.prototype.forEach.call(fileList, function (file) {
        if (chosen.length < 10) chosen.push(file);
      });
      render();
    }
    input.addEventListener('change', function () {
      add(input.files);
      input.value = '';
    });
    ['dragenter', 'dragover'].forEach(function (type) {
      form.addEventListener(type, function (event) {
        if (!event.dataTransfer || Array.prototype.indexOf.call(event.dataTransfer.types, 'Files') < 0) return;
        event.preventDefault();
        zone.classList.add('dragging');
      });
    });
    ['dragleave', 'drop'].forEach(function (type) {
      form.addEventListener(type, function () {
        zone.classList.remove('dragging');
      });
    });
    form.addEventListener('drop', function (event) {
      if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      add(event.dataTransfer.files);
    });

    function progress(text, done, total) {
      statusBox.hidden = false;
      label.textContent = text;
      bar.value = total === 0 ? 100 : Math.round((done / total) * 100);
    }
    function failed(message) {
      var error = new Error(message);
      error.uploadFailed = true;
      return error;
    }
    /** The encrypted file as a Blob of its sealed chunks, reporting the plaintext read so far. */
    function encryptFile(file, material, onBytes) {
      var parts = [];
      var encrypted = file.stream().pipeThrough(
        new window.TransformStream({
          transform: function (chunk, controller) {
            onBytes(chunk.byteLength);
            controller.enqueue(chunk);
          },
        }),
      );
      var reader = encrypted.pipeThrough(window.pasteFiles.encryptFileStream(material)).getReader();
      function next() {
        return reader.read().then(function (step) {
          if (step.done) return new window.Blob(parts, { type: 'application/octet-stream' });
          parts.push(new window.Blob([step.value]));
          return next();
        });
      }
      return next();
    }
    function put(url, blob, onBytes) {
      return new Promise(function (resolve, reject) {
        var request = new window.XMLHttpRequest();
        request.open('PUT', url);
        request.setRequestHeader('Content-Type', 'application/octet-stream');
        request.upload.onprogress = function (event) {
          onBytes(event.loaded);
        };
        request.onload = function () {
          if (request.status >= 200 && request.status < 300) resolve();
          else reject(failed(t('uploadFailed', { status: request.status })));
        };
        request.onerror = function () {
          reject(failed(t('storeUnreachable')));
        };
        request.send(blob);
      });
    }
    function upload(created, files, key, password, envelope) {
      var total = files.reduce(function (sum, file) {
        return sum + file.size * (key ? 2 : 1);
      }, 0);
      var done = 0;
      var material = key
        ? window.pasteFiles.fileKeyMaterial(key, { password: password, salt: envelope && envelope.salt })
        : Promise.resolve(undefined);
      return material
        .then(function (keyMaterial) {
          return files.reduce(function (previous, file, index) {
            return previous.then(function () {
              var target = created.attachments[index].uploadUrl;
              var start = done;
              var body = keyMaterial
                ? encryptFile(file, keyMaterial, function (bytes) {
                    done += bytes;
                    progress(t('encryptingFile', { name: file.name }), done, total);
                  })
                : Promise.resolve(file);
              return body.then(function (blob) {
                var base = keyMaterial ? start + file.size : start;
                return put(target, blob, function (sent) {
                  done = base + Math.min(file.size, Math.round((sent / Math.max(blob.size, 1)) * file.size));
                  progress(t('uploadingFile', { name: file.name }), done, total);
                }).then(function () {
                  done = base + file.size;
                  progress(t('uploadedFile', { name: file.name }), done, total);
                });
              });
            });
          }, Promise.resolve());
        })
        .then(function () {
          return fetch('/api/paste/' + encodeURIComponent(created.slug) + '/complete', {
            method: 'POST',
            credentials: 'same-origin',
            headers: { 'X-Delete-Token': created.deleteToken, Accept: 'application/json' },
          });
        })
        .then(function (response) {
          if (!response.ok) throw failed(t('filesMissing', { status: response.status }));
          progress(t('done'), total, total);
        });
    }

    return {
      chosen: function () {
        return chosen.slice();
      },
      upload: upload,
    };
  }

  function setUpCopyButton(button) {
    // "Copied" replaces the button's text: read out as it happens, as ui.js's copy buttons are.
    button.setAttribute('aria-live', 'polite');
    button.addEventListener('click', function () {
      var source = document.getElementById(button.getAttribute('data-target'));
      var text = !source
        ? ''
        : source.tagName === 'INPUT' || source.tagName === 'TEXTAREA'
          ? source.value
          : source.textContent;
      var label = button.getAttribute('data-label') || button.textContent;
      button.setAttribute('data-label', label);
      var done = function () {
        button.textContent = t('copied');
        setTimeout(function () {
          button.textContent = label;
        }, 1500);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () {
          fallbackCopy(text);
          done();
        });
      } else {
        fallbackCopy(text);
        done();
      }
    });
  }

  // The delete link carries its token in the fragment (#token), which browsers never send to
  // the server; the form posts it in the body.
  function setUpDeleteForm(form) {
    var token = decodeURIComponent(window.location.hash.replace(/^#/, ''));
    form.elements.token.value = token;
    if (token === '') {
      document.getElementById('delete-token-missing').hidden = false;
      document.getElementById('delete-button').disabled = true;
    }
  }

  // An encrypted paste's key lives in the fragment, which a form's action would drop: the
  // "Show paste" and password forms post to an address that carries it on, and a password is
  // handed to the next page (this tab only, read once), where it is part of the key.
  function keepKeyThroughForm(form) {
    form.addEventListener('submit', function () {
      var hash = window.location.hash;
      if (!hash || hash === '#') return;
      form.action = form.getAttribute('action').split('#')[0] + hash;
      var password = form.elements.password;
      if (password && password.value) {
        try {
          window.sessionStorage.setItem('paste-password:' + form.getAttribute('data-keeps-key'), password.value);
        } catch (ignored) {
          /* storage off: the next page asks */
        }
      }
    });
  }

  // The creator's page of an encrypted paste: the key came along in this page's fragment.
  function addKeyToLink(input) {
    var hash = window.location.hash;
    if (hash && hash !== '#') {
      input.value = input.value + hash;
      // qrcode's browser build is a deferred script after this one: it has run by DOMContentLoaded.
      document.addEventListener('DOMContentLoaded', function () {
        drawQrCode(input.value);
      });
    } else document.getElementById('key-missing').hidden = false;
  }

  // The QR code of the whole link, key included, drawn here as the server draws plain pastes'
  // (creator/qr.ts: SVG, level M, margin 2, black on white in both themes), so the key stays in
  // the browser.
  function drawQrCode(link) {
    var figure = document.getElementById('qr-figure');
    if (!figure || !window.QRCode) return;
    window.QRCode.toString(
      link,
      { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } },
      function (error, markup) {
        if (error) return;
        // Path data only: the link is drawn, never written into the markup as text.
        var svg = new DOMParser().parseFromString(markup, 'image/svg+xml').documentElement;
        if (svg.nodeName !== 'svg') return;
        svg.setAttribute('class', 'qr-code');
        svg.setAttribute('role', 'img');
        svg.setAttribute('aria-label', t('qr', { link: link }));
        figure.insertBefore(document.importNode(svg, true), figure.firstChild);
        figure.hidden = false;
      },
    );
  }

  function fallbackCopy(text) {
    var area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'absolute';
    area.style.left = '-9999px';
    document.body.appendChild(area);
    area.select();
    try {
      document.execCommand('copy');
    } catch (ignored) {
      /* nothing more to try */
    }
    document.body.removeChild(area);
  }
})();

// The owner's dashboard (/admin): every form posts JSON (or the file) with the session's CSRF token.
(function () {
  'use strict';

  var forms = document.querySelectorAll('form.admin-form');
  if (!forms.length) return;
  var tokenPromise;

  function csrfToken() {
    tokenPromise =
      tokenPromise ||
      fetch('/api/csrf-token', { credentials: 'same-origin' })
        .then(function (response) {
          return response.json();
        })
        .then(function (body) {
          return body.csrfToken;
        });
    return tokenPromise;
  }

  function send(method, url, body, isFile) {
    return csrfToken()
      .then(function (token) {
        var headers = { 'X-CSRF-Token': token };
        if (!isFile && body !== undefined) headers['Content-Type'] = 'application/json';
        return fetch(url, {
          method: method,
          credentials: 'same-origin',
          headers: headers,
          body: isFile ? body : JSON.stringify(body),
        });
      })
      .then(function (response) {
        return response
          .json()
          .catch(function () {
            return {};
          })
          .then(function (data) {
            if (!response.ok) {
              var details = data.details
                ? ' (' +
                  Object.keys(data.details)
                    .map(function (k) {
                      return k + ': ' + data.details[k];
                    })
                    .join('; ') +
                  ')'
                : '';
              throw new Error((data.error || 'Request failed with status ' + response.status) + details);
            }
            return data;
          });
      });
  }

  function fieldsOf(form) {
    var body = {};
    Array.prototype.forEach.call(form.elements, function (element) {
      if (!element.name) return;
      if (element.type === 'checkbox') body[element.name] = element.checked;
      else if (element.type === 'number') body[element.name] = element.value === '' ? undefined : Number(element.value);
      else body[element.name] = element.value;
    });
    return body;
  }

  // Asks in the shared in-page dialog (ui.js), never the browser's confirm().
  function ask(question, button) {
    return window.ui.confirmDialog(question, { button: button });
  }

  function say(status, text, ok) {
    status.className = 'form-status small ' + (ok ? 'ok' : 'error');
    status.textContent = text;
  }

  // The list of API keys, re-read from the page itself after a change, so it shows what the
  // server has without a reload (and with the server's own formatting).
  function refreshKeyList() {
    return fetch('/admin', { credentials: 'same-origin' })
      .then(function (response) {
        return response.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('api-key-list');
        var current = document.getElementById('api-key-list');
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      });
  }

  // The key just created: shown once, with a Copy button, above the form.
  function showNewKey(apiKey) {
    var box = document.getElementById('new-key');
    document.getElementById('new-key-name').textContent = apiKey.name;
    document.getElementById('new-key-value').value = apiKey.key;
    box.hidden = false;
  }

  Array.prototype.forEach.call(forms, function (form) {
    var status = form.querySelector('.form-status');
    function submit() {
      var request;
      if (form.dataset.upload) {
        var input = form.querySelector('input[type=file]');
        if (!input.files.length) {
          say(status, 'Choose a file first.', false);
          return;
        }
        var data = new FormData();
        data.append(form.dataset.upload, input.files[0]);
        request = send('POST', form.dataset.endpoint, data, true);
      } else {
        request = send('POST', form.dataset.endpoint, fieldsOf(form));
      }
      status.textContent = 'Saving…';
      status.className = 'form-status small';
      request
        .then(function (result) {
          if ('createsKey' in form.dataset && result.apiKey) {
            showNewKey(result.apiKey);
            form.reset();
            say(status, 'Key created.', true);
            return refreshKeyList();
          }
          say(status, result.message || 'Saved', true);
          if (form.dataset.upload)
            setTimeout(function () {
              window.location.reload();
            }, 600);
        })
        .catch(function (error) {
          say(status, error.message, false);
        });
    }
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!form.dataset.confirm) {
        submit();
        return;
      }
      ask(form.dataset.confirm, form.dataset.confirmButton).then(function (ok) {
        if (ok) submit();
      });
    });
  });

  // Delete buttons: delegated, since the list of keys is replaced after each change.
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('[data-delete-key]');
    if (!button) return;
    var status = document.querySelector('form[data-creates-key] .form-status');
    ask('Delete this API key? Programs using it will be refused.', 'Delete key').then(function (ok) {
      if (!ok) return;
      button.disabled = true;
      send('DELETE', '/api/settings/api-keys/' + encodeURIComponent(button.getAttribute('data-delete-key')))
        .then(function () {
          say(status, 'API key deleted.', true);
          return refreshKeyList();
        })
        .catch(function (error) {
          button.disabled = false;
          say(status, error.message, false);
        });
    });
  });

  // The list of pastes: the owner deletes with the same request as a delete token holder, by the session.
  Array.prototype.forEach.call(document.querySelectorAll('[data-delete-paste]'), function (button) {
    button.addEventListener('click', function () {
      var slug = button.getAttribute('data-delete-paste');
      var status = document.getElementById('paste-list-status');
      ask('Delete paste ' + slug + '? This cannot be undone.', 'Delete paste').then(function (ok) {
        if (!ok) return;
        button.disabled = true;
        send('DELETE', '/api/paste/' + encodeURIComponent(slug)).then(
          function () {
            var row = button.closest('tr');
            if (row) row.parentNode.removeChild(row);
            say(status, 'Paste ' + slug + ' deleted.', true);
          },
          function (error) {
            button.disabled = false;
            say(status, error.message, false);
          },
        );
      });
    });
  });
})();
