import { createHash } from 'node:crypto';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import { html } from './html.js';

type JsonSchema = Record<string, unknown>;

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The OpenAPI document as sent: serialised, compressed and hashed once (it never changes while the app runs). */
export interface PreparedDocument {
  json: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
  page: string;
}

export function prepareDocument(document: JsonSchema): PreparedDocument {
  const json = Buffer.from(JSON.stringify(document), 'utf8');
  return {
    json,
    gzip: gzipSync(json, { level: 9 }),
    br: brotliCompressSync(json, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: json.length },
    }),
    etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`,
    page: referencePage(document),
  };
}

/**
 * Sends the document: 304 when the client's copy (If-None-Match) is current, else brotli or gzip
 * when the client takes them, with the ETag and `no-cache` (reuse after asking).
 */
export function sendDocument(req: Request, res: Response, prepared: PreparedDocument): void {
  res.set({ ETag: prepared.etag, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' });
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  const encoding = req.acceptsEncodings('br', 'gzip', 'identity');
  const body = encoding === 'br' ? prepared.br : encoding === 'gzip' ? prepared.gzip : prepared.json;
  if (encoding === 'br' || encoding === 'gzip') res.set('Content-Encoding', encoding);
  res.status(200).type('application/json; charset=utf-8').send(body);
}

interface Operation {
  method: string;
  path: string;
  summary: string;
  tag: string;
  operationId: string;
}

function operationsOf(document: JsonSchema): Operation[] {
  const paths = (document.paths ?? {}) as Record<
    string,
    Record<string, { summary?: string; tags?: string[]; operationId?: string }>
  >;
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of methods) {
      const operation = item[method];
      if (!operation) continue;
      out.push({
        method,
        path,
        summary: operation.summary ?? '',
        tag: operation.tags?.[0] ?? 'default',
        operationId: operation.operationId ?? '',
      });
    }
  }
  return out;
}

/**
 * The reference page. Swagger UI needs seconds to lay out a large document, so the page itself
 * carries a first view: every operation by tag, in Swagger UI's own markup and classes, readable
 * at first paint. The scripts are deferred; once Swagger UI has rendered the document it takes
 * the first view's place (swagger-ui-init.js).
 */
function referencePage(document: JsonSchema): string {
  const info = (document.info ?? {}) as { title?: string; version?: string; description?: string };
  const byTag = new Map<string, Operation[]>();
  for (const operation of operationsOf(document))
    byTag.set(operation.tag, [...(byTag.get(operation.tag) ?? []), operation]);
  const title = info.title ?? 'API';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · ${title}</title>
<link rel="stylesheet" href="./swagger-ui.css">
<link rel="stylesheet" href="./reference.css">
<link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
<script src="./swagger-ui-bundle.js" defer></script>
<script src="./swagger-ui-standalone-preset.js" defer></script>
<script src="./swagger-ui-init.js" defer></script>
</head>
<body>
<div class="swagger-ui" id="first-view" aria-busy="true">
  <div class="wrapper">
    <section class="information-container"><div class="info">
      <h2 class="title">${title} <span><small><pre class="version">${info.version ?? ''}</pre></small></span></h2>
      <div class="description"><p>${info.description ?? ''}</p></div>
      <p class="reference-note">The interactive reference (parameters, answers, Try it out) is loading; every operation is listed already. <a href="/openapi.json">The OpenAPI document</a>.</p>
    </div></section>
${[...byTag].map(
  ([tag, operations]) => html`    <div class="opblock-tag-section is-open">
      <h3 class="opblock-tag"><span>${tag}</span></h3>
      <div class="operation-tag-content">
${operations.map(
  (
    operation,
  ) => html`        <div class="opblock opblock-${operation.method}" data-operation="${operation.operationId}">
          <div class="opblock-summary opblock-summary-${operation.method}">
            <span class="opblock-summary-method">${operation.method.toUpperCase()}</span>
            <span class="opblock-summary-path"><span>${operation.path}</span></span>
            <div class="opblock-summary-description">${operation.summary}</div>
          </div>
        </div>
`,
)}      </div>
    </div>
`,
)}  </div>
</div>
<div id="swagger-ui"></div>
</body>
</html>
`.html;
}

/** Starts Swagger UI on /openapi.json and swaps it in for the first view once it has rendered. */
export const referenceInitScript = `// Served as a file: the Content-Security-Policy allows no inline script.
window.addEventListener('DOMContentLoaded', function () {
  'use strict';
  var firstView = document.getElementById('first-view');
  // The configuration swagger-ui-express used for this page, plus the swap.
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    onComplete: function () {
      if (firstView) firstView.remove();
      // Swagger UI draws the servers menu without a label (WCAG 2.1 AA, select-name).
      var servers = document.getElementById('servers');
      if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
    },
  });
});
`;

/** The first view's few rules beyond Swagger UI's stylesheet. */
export const referenceStyles = `.swagger-ui .topbar { display: none; }
.reference-note { color: #3b4151; font-family: sans-serif; font-size: 14px; }
#first-view .opblock-summary { text-decoration: none; color: inherit; }
#first-view .opblock-summary-path span { word-break: break-word; }
/* Swagger UI's own colours darkened to 4.5:1 for white text (WCAG 2.1 AA), and links likewise. */
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d6fb8; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #137a4b; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #9a5200; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c22a2a; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f7865; }
.swagger-ui .info .title small:not(.version-stamp) pre { background: #5b6270; }
.swagger-ui .info .title small.version-stamp, .swagger-ui .info .title small.version-stamp pre { background: #4d7000; }
.swagger-ui .info a, .swagger-ui .info .url, .reference-note a { color: #1d64c0; }
.swagger-ui .btn.authorize { color: #137a4b; border-color: #137a4b; }
.swagger-ui .btn.authorize svg { fill: #137a4b; }
`;
