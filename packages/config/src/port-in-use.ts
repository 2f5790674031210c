/**
 * A port another process already listens on, said in one line with the variable that moves it:
 * the usual cause is a second `npm start` (or a service started twice), and a stack trace of
 * EADDRINUSE tells a person neither.
 */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly variable: string,
  ) {
    super(
      `Port ${port} is in use: another npm start may be running. Stop it, or set ${variable} to a free port (e.g. ${variable}=${port + 1}).`,
    );
    this.name = 'PortInUseError';
  }
}

/** The listen error as a PortInUseError when the port is taken; any other error as it is. */
export function explainListenError(error: unknown, port: number, variable: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return new PortInUseError(port, variable);
  return error instanceof Error ? error : new Error(String(error));
}
