import type { Express, Response } from 'express';

type RenderCallback = (error: Error | null, html?: string) => void;

/**
 * Sends a rendered page as Express's `res.send(html)` does, writing the common case directly:
 * a 2xx answer to a GET whose handler chose no Content-Type, in an app that hashes no ETag, to a
 * request that is not conditional (so never a 304). For a page over 1000 characters,
 * `res.send` copies the text into a Buffer to measure it (on a paste page that copy and its
 * garbage were about a twentieth of the request's time); here the length is counted and the
 * text is written as it is. Every other case goes to `res.send`, which answers it as before.
 */
export function sendPage(res: Response, html: string): void {
  const req = res.req;
  const status = res.statusCode;
  if (
    req.method !== 'GET' ||
    status < 200 ||
    status > 299 ||
    status === 204 ||
    status === 205 ||
    req.headers['if-none-match'] !== undefined ||
    req.headers['if-modified-since'] !== undefined ||
    res.getHeader('Content-Type') !== undefined ||
    res.getHeader('Transfer-Encoding') !== undefined ||
    req.app.get('etag fn')
  ) {
    res.send(html);
    return;
  }
  // The same header values, in the same order, as res.type('html') and res.set('Content-Length').
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(html, 'utf8')));
  res.end(html, 'utf8');
}

/**
 * Makes `res.render(view, data)` without a callback answer through `sendPage` (only in this
 * app: Express gives each app its own response prototype). A render with its own callback is
 * left as it is.
 */
export function sendPagesDirectly(app: Express): void {
  const response = app.response as Response;
  // Express's own render, always called on the response (`render.call(this, ...)`).
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const render = response.render as (
    this: Response,
    view: string,
    options?: object | RenderCallback,
    callback?: RenderCallback,
  ) => void;
  response.render = function (
    this: Response,
    view: string,
    options?: object | RenderCallback,
    callback?: RenderCallback,
  ) {
    if (callback !== undefined || typeof options === 'function') {
      render.call(this, view, options, callback);
      return;
    }
    render.call(this, view, options, (error, html) => {
      // As Express's own callback: an error goes to the app's error handlers.
      if (error) this.req.next!(error);
      else if (typeof html === 'string') sendPage(this, html);
      else this.send(html);
    });
  } as Response['render'];
}
