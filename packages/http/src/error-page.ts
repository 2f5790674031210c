import type { Request } from 'express';

/**
 * Whether an error should be answered as an HTML page rather than JSON: only when a browser asked
 * for a page. Programs keep JSON: curl and fetch send `*\/*` (JSON wins), clients of the API send
 * `application/json`. A browser navigation lists `text/html` first.
 *
 * Under `/api/` the answer stays JSON unless the browser is navigating (`Sec-Fetch-Mode:
 * navigate`): a person following a download link (`/api/.../file`) reads a page, while an HTTP
 * library that happens to list text/html in its default Accept (Java's does) still gets JSON.
 */
export function wantsHtmlErrorPage(req: Request): boolean {
  const accept = req.get('accept') ?? '';
  if (!/\btext\/html\b/i.test(accept) || req.accepts(['json', 'html']) !== 'html') return false;
  const underApi = req.path === '/api' || req.path.startsWith('/api/');
  return !underApi || req.get('sec-fetch-mode') === 'navigate';
}

/**
 * Where the error page's link goes back to: the page the person came from when it is one of
 * this site's (the Referer, same host), otherwise the start page.
 */
export function backLinkOf(req: Request): { href: string; sameSite: boolean } {
  const referer = req.get('referer');
  if (referer) {
    try {
      const from = new URL(referer);
      if (from.host === req.get('host') && from.pathname !== req.path)
        return { href: from.pathname + from.search, sameSite: true };
    } catch {
      /* not a URL: the start page */
    }
  }
  return { href: '/', sameSite: false };
}
