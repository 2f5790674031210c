import net from 'node:net';
import { requireForTests } from '@app/http/testing';

/** The Redis the tests use: REDIS_URL, else the local default. */
export const testRedisUrl = (): string => process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * Whether a Redis server answers PING at `url`. Tests that need Redis skip themselves on a
 * machine without one (a fresh laptop running `npm test`), printing one line that says so,
 * except in CI (`CI=true`), where a missing Redis fails the run.
 */
export async function redisForTests(what: string, url = testRedisUrl()): Promise<boolean> {
  const answered = await pingRedis(url);
  return requireForTests(what, answered ? undefined : `Redis does not answer at ${url}: start redis-server or set REDIS_URL`);
}

function pingRedis(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: hostname || '127.0.0.1', port: Number(port) || 6379 });
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
