import type { RequestHandler } from 'express';

/** Who is signed in, as every page's header shows it (`res.locals.viewer`). */
export interface Viewer {
  username: string;
  /** The site's owner: the header links to /admin. */
  owner: boolean;
}

/**
 * Puts the signed-in user in the pages' locals, after the session is read, so every page's
 * header says who is signed in; a visitor who is not signed in gets no `viewer`.
 */
export function viewerLocals(ownerId: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (req.user) {
      res.locals.viewer = {
        username: req.user.username,
        owner: ownerId !== undefined && req.user.id === ownerId,
      } satisfies Viewer;
      // A page that names who is signed in is theirs alone: no shared or later copy of it.
      if (!req.path.startsWith('/api/')) res.set('Cache-Control', 'private, no-store');
    }
    next();
  };
}
