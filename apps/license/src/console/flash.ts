import type { Request, Response } from 'express';

// A one-time message carried by the session from a page's form post to the page it redirects
// to (post, redirect, get): shown once, then gone. packages/auth declares the session's field.

/** fields: the form fields an error is about (ui/flash marks them aria-invalid). */
export interface FlashMessage {
  type: 'success' | 'error';
  text: string;
  fields?: string[];
}

/** Keeps a message for the next page this session renders. */
export function setFlash(req: Request, message: FlashMessage): void {
  if (req.session) req.session.flash = [...(req.session.flash ?? []), message];
}

/** The messages kept for this page, removed from the session (the `ui/flash` partial shows them). */
export function takeFlash(req: Request): FlashMessage[] {
  const messages = req.session?.flash ?? [];
  if (messages.length > 0) delete req.session.flash;
  return messages;
}

/**
 * Redirects (303: the browser asks with GET) once the session is saved. express-session would
 * otherwise send the headers while it saves, and a browser that follows the Location at once
 * can read the session before the message is in it (seen on PostgreSQL). A failed save still
 * redirects: the page works, only its message is lost.
 */
export async function redirectAfterSaving(req: Request, res: Response, location: string): Promise<void> {
  if (req.session) await new Promise<void>((resolve) => req.session.save(() => resolve()));
  res.redirect(303, location);
}

/** Keeps a message for the page the redirect leads to, and redirects there. */
export async function redirectWithFlash(
  req: Request,
  res: Response,
  location: string,
  message: FlashMessage,
): Promise<void> {
  setFlash(req, message);
  await redirectAfterSaving(req, res, location);
}
