import type { Request } from 'express';

/** Who made an admin change, as the audit log records it. */
export interface Actor {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

export function actorOf(req: Request): Actor {
  return {
    userId: req.admin?.userId ?? req.user?.id ?? 'anonymous',
    ip: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
  };
}
