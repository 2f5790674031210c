import type { Request } from 'express';

/** The slugs this session has unlocked, most recent last; bounded so a session row stays small. */
const MAX_UNLOCKED = 200;

interface UnlockState { unlockedPastes?: string[] }

const stateOf = (req: Request) => (req as unknown as { session?: UnlockState }).session;

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
