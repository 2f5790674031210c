import type { Request, RequestHandler } from 'express';

/** The cookie that marks a session's recent write, and how long its reads then stay on the primary. */
export const RECENT_WRITE_COOKIE = 'recent-write';
export const READ_YOUR_WRITES_MS = 5_000;

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const marked = new RegExp(`(?:^|;\\s*)${RECENT_WRITE_COOKIE}=`);

export interface ReadYourWritesOptions {
  /** Runs the rest of the request with its replica reads on the primary (ReplicaReads.onPrimary). */
  onPrimary: (work: () => void) => void;
  /** Whether the request belongs to a session (its session cookie): only sessions are marked. */
  hasSession: (req: Request) => boolean;
}

/**
 * Reads by a session within 5 s of its own last write go to the primary, so a list shown after a
 * save holds what was saved even while the replica replays it. The mark is a short-lived cookie,
 * not instance memory: behind a load balancer the next request may reach another instance. It
 * says only "read from the primary", so a client that forges it costs the primary a read.
 */
export function readYourWrites(options: ReadYourWritesOptions): RequestHandler {
  const cookie = `${RECENT_WRITE_COOKIE}=1; Max-Age=${READ_YOUR_WRITES_MS / 1000}; Path=/; HttpOnly; SameSite=Lax`;
  return (req, res, next) => {
    const writes = !readMethods.has(req.method);
    if (writes && options.hasSession(req)) res.append('Set-Cookie', cookie);
    if (writes || marked.test(req.headers.cookie ?? '')) return options.onPrimary(next);
    next();
  };
}
