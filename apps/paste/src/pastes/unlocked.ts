import type { Request } from 'express';
import type { SessionData } from 'express-session';

/** The slugs this session has unlocked, most recent last; bounded so a session row stays small. */
const MAX_UNLOCKED = 200;

declare module 'express-session' {
  interface SessionData {
    unlockedPastes?: string[];
  }
}

/** The session, or undefined where the hot path skipped it (no session cookie). */
const stateOf = (req: Request): Partial<SessionData> | undefined => req.session;

export function isUnlocked(req: Request, slug: string): boolean {
  return stateOf(req)?.unlockedPastes?.includes(slug) ?? false;
}

export function unlock(req: Request, slug: string): void {
  const state = stateOf(req);
  if (!state) return;
  const list = (state.unlockedPastes ?? []).filter((item) => item !== slug);
  list.push(slug);
  state.unlockedPastes = list.slice(-MAX_UNLOCKED);
}
