// What the guards attach to the request.
export interface AdminRecord {
  id: string;
  userId: string;
  username: string | null;
  /** How this request proved it is the admin. */
  via: 'session' | 'jwt';
}

export interface CustomerRecord {
  id: string;
  name: string;
  email: string;
  userId: string | null;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      admin?: AdminRecord;
      customer?: CustomerRecord;
    }
  }
}
