import net from 'node:net';

/**
 * Whether a Redis server answers PING at `url`. Tests that need Redis skip themselves on a
 * machine without one (a fresh laptop running `npm test`), except in CI (`CI=true`), where a
 * missing Redis is a failure rather than a silent skip.
 */
export async function redisAvailableForTests(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  const answered = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port) || 6379 });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
  if (!answered && process.env.CI) throw new Error(`Redis does not answer at ${url}, and CI requires it`);
  return answered;
}
