import type { Request } from 'express';

// A one-time message carried by the session from a page's form post to the page it redirects
// to (post, redirect, get): shown once, then gone. express-session's types live in @app/auth, so
// the field is read through this accessor (as two-factor.session.ts does) instead of an augmentation.

export interface FlashMessage { type: 'success' | 'error'; text: string }
interface FlashSessionData { flash?: FlashMessage[] }

const data = (req: Request) => req.session as unknown as FlashSessionData | undefined;

/** Keeps a message for the next page this session renders. */
export function setFlash(req: Request, message: FlashMessage): void {
  const session = data(req);
  if (session) session.flash = [...(session.flash ?? []), message];
}

/** The messages kept for this page, removed from the session (the `ui/flash` partial shows them). */
export function takeFlash(req: Request): FlashMessage[] {
  const session = data(req);
  const messages = session?.flash ?? [];
  if (session?.flash) delete session.flash;
  return messages;
}
