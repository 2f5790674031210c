import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  user?: string;
}

/**
 * A real local SMTP server that keeps every message it accepts. With `credentials`, it takes
 * sign-ins and refuses wrong ones; without, anyone may send.
 */
export async function startSmtpStandIn(options: { credentials?: { username: string; password: string } } = {}) {
  const mails: ReceivedMail[] = [];
  const { credentials } = options;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    onAuth(auth, _session, callback) {
      if (credentials && auth.username === credentials.username && auth.password === credentials.password)
        callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => {
        raw += chunk.toString('utf8');
      });
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
export type SmtpStandIn = Awaited<ReturnType<typeof startSmtpStandIn>>;
