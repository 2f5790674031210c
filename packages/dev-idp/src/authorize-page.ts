/** Everything echoed into the page goes through here: query values are attacker-controlled. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The sign-in form: one text field for the user id. Every other authorization parameter
 * (state, redirect_uri, client_id, ...) rides along in hidden fields, so submitting the form
 * repeats the same authorization request with `login_hint` set.
 */
export function renderAuthorizePage(params: URLSearchParams, error?: string): string {
  const hidden = [...params]
    .filter(([name]) => name !== 'login_hint')
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
  let returnTo = '';
  try {
    returnTo = new URL(params.get('redirect_uri') ?? '').host;
  } catch {
    // Missing or malformed: the handler already refused the request before rendering.
  }
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sign in · Development identity provider</title>
  <style>
    :root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
    body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f3f4f6; }
    main { width: min(22rem, 90vw); padding: 2rem; border-radius: 12px; background: #fff;
      box-shadow: 0 10px 30px rgb(0 0 0 / 0.08); }
    h1 { margin: 0 0 0.25rem; font-size: 1.25rem; }
    p { margin: 0 0 1.25rem; color: #6b7280; font-size: 0.9rem; line-height: 1.4; }
    label { display: block; font-weight: 600; margin-bottom: 0.4rem; }
    input[type=text] { box-sizing: border-box; width: 100%; padding: 0.6rem 0.75rem; font-size: 1rem;
      border: 1px solid #d1d5db; border-radius: 8px; }
    input[type=text]:focus { outline: 2px solid #2563eb; border-color: transparent; }
    button { margin-top: 1rem; width: 100%; padding: 0.65rem; font-size: 1rem; font-weight: 600; color: #fff;
      background: #2563eb; border: 0; border-radius: 8px; cursor: pointer; }
    button:hover { background: #1d4ed8; }
    .error { color: #b91c1c; margin: 0.5rem 0 0; }
    .note { margin: 1.25rem 0 0; font-size: 0.8rem; }
    @media (prefers-color-scheme: dark) {
      body { background: #111827; } main { background: #1f2937; color: #f9fafb; }
      input[type=text] { background: #111827; color: #f9fafb; border-color: #374151; }
    }
  </style>
</head>
<body>
  <main>
    <h1>Sign in</h1>
    <p>Development identity provider${returnTo ? ` for <strong>${escapeHtml(returnTo)}</strong>` : ''}.</p>
    <form method="get" action="/authorize">
      ${hidden}
      <label for="login_hint">User id</label>
      <input type="text" id="login_hint" name="login_hint" required maxlength="200" autocomplete="username" autofocus>
      ${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
      <button type="submit">Sign in</button>
    </form>
    <p class="note">Any user id signs in; the username is the same text. For local development only.</p>
  </main>
</body>
</html>`;
}
