import type { Request } from 'express';
import type { SessionData } from 'express-session';

/**
 * The pastes this browser session just created through the web form, with their delete
 * tokens, so that the creator's page (`/paste/:slug/created`) can show the delete link to the
 * creator and to nobody else. The token is kept in plain text here, in the session row, so an
 * entry lives only CREATED_PAGE_TTL_MS and the list holds at most MAX_CREATED entries.
 */
export const CREATED_PAGE_TTL_MS = 60 * 60 * 1000;
const MAX_CREATED = 20;

export interface CreatedEntry {
  slug: string;
  deleteToken: string;
  /** Epoch milliseconds. */
  createdAt: number;
}

declare module 'express-session' {
  interface SessionData {
    createdPastes?: CreatedEntry[];
  }
}

/** The session, or undefined where the hot path skipped it (no session cookie). */
const stateOf = (req: Request): Partial<SessionData> | undefined => req.session;

const fresh = (entries: CreatedEntry[] | undefined, now: number) =>
  (entries ?? []).filter((entry) => now - entry.createdAt < CREATED_PAGE_TTL_MS);

export function rememberCreated(req: Request, slug: string, deleteToken: string, now: number): void {
  const state = stateOf(req);
  if (!state) return;
  const list = fresh(state.createdPastes, now).filter((entry) => entry.slug !== slug);
  list.push({ slug, deleteToken, createdAt: now });
  state.createdPastes = list.slice(-MAX_CREATED);
}

/** This session's entry for the slug, while it is fresh. */
export function createdEntry(req: Request, slug: string, now: number): CreatedEntry | undefined {
  return fresh(stateOf(req)?.createdPastes, now).find((entry) => entry.slug === slug);
}

export function forgetCreated(req: Request, slug: string): void {
  const state = stateOf(req);
  if (!state?.createdPastes?.some((entry) => entry.slug === slug)) return;
  state.createdPastes = state.createdPastes.filter((entry) => entry.slug !== slug);
}
