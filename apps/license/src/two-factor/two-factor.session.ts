import type { Request } from 'express';

// The session's two-factor mark. express-session's types live in @app/auth, so the field is read
// through this small accessor instead of a module augmentation.
interface TwoFactorSessionData {
  twoFactorVerified?: string;
}

const data = (req: Request) => req.session as unknown as TwoFactorSessionData | undefined;

/** True when this session has verified two-factor for this user (sign-in makes a new session). */
export function isSessionVerified(req: Request, userId: string): boolean {
  return data(req)?.twoFactorVerified === userId;
}

export function markSessionVerified(req: Request, userId: string): void {
  // A bearer-token request has no session of its own to mark (and needs none: it is not gated).
  if (req.admin?.via === 'jwt') return;
  const session = data(req);
  if (session) session.twoFactorVerified = userId;
}

export function clearSessionVerified(req: Request): void {
  const session = data(req);
  if (session) delete session.twoFactorVerified;
}
