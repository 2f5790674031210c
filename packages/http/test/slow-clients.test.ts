import net from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { serveGracefully, type RunningServer } from '../src/serve.js';

// A real listening server and a raw socket: a client that sends its request a byte at a time
// must not hold a connection for Node's default 300 s. The deadlines are shortened here (the
// services use 20 s for the headers and 30 s for the whole request).
const headersTimeoutMs = 400;
const requestTimeoutMs = 800;
/** Longer than both deadlines and the checking interval together. */
const pastBothDeadlines = requestTimeoutMs + 700;

let running: RunningServer;
let defaults: RunningServer;

beforeAll(async () => {
  const app = express();
  app.get('/', (_req, res) => {
    res.type('text').send('hello');
  });
  app.post('/echo', express.json(), (req, res) => {
    res.json({ received: req.body });
  });
  const common = {
    host: '127.0.0.1',
    logger: createLogger({ level: 'silent' }),
    timeoutMs: 1000,
    onClosed: async () => {},
    handleSignals: false,
  };
  running = await serveGracefully(app, {
    ...common,
    port: 0,
    name: 'slow-client test',
    headersTimeoutMs,
    requestTimeoutMs,
  });
  defaults = await serveGracefully(app, { ...common, port: 0, name: 'defaults test' });
});

afterAll(async () => {
  await running?.stop();
  await defaults?.stop();
});

interface RawConnection {
  socket: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves once the server closed the connection (or fails after `withinMs`). */
  closed(withinMs: number): Promise<void>;
  /** Resolves once what the server sent contains `text`. */
  receivedText(text: string, withinMs: number): Promise<string>;
}

async function connect(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let data = '';
  let ended = false;
  socket.on('data', (chunk) => {
    data += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    ended = true;
  });
  const waitFor = (done: () => boolean, withinMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const check = () => {
        if (done()) return resolve();
        if (Date.now() - started > withinMs)
          return reject(new Error(`${what} within ${withinMs} ms; received so far: ${JSON.stringify(data)}`));
        setTimeout(check, 20);
      };
      check();
    });
  return {
    socket,
    received: () => data,
    closed: (withinMs) => waitFor(() => ended, withinMs, 'the server did not close the connection'),
    receivedText: async (text, withinMs) => {
      await waitFor(() => data.includes(text), withinMs, `no ${JSON.stringify(text)}`);
      return data;
    },
  };
}

/** Writes `chunks` one every `everyMs` until the socket closes (a client that keeps trickling). */
function trickle(connection: RawConnection, chunks: () => string, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (connection.socket.destroyed || connection.socket.writableEnded) return clearInterval(timer);
    connection.socket.write(chunks());
  }, everyMs);
  return () => clearInterval(timer);
}

describe('a client that sends its request slowly', () => {
  it('trickling its headers past the header deadline is answered 408 and disconnected', async () => {
    const connection = await connect(running.port);
    connection.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
    // A header line every 100 ms: never idle long, but the headers never end.
    let line = 0;
    const stop = trickle(connection, () => `X-Slow-${line++}: a\r\n`, 100);
    try {
      await connection.closed(headersTimeoutMs + 3000);
    } finally {
      stop();
    }
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(connection.received()).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('trickling its body past the request deadline is answered 408 and disconnected', async () => {
    const connection = await connect(running.port);
    connection.socket.write(
      'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":"',
    );
    // The headers arrived at once; the body comes one byte every 100 ms and would take 100 s.
    const stop = trickle(connection, () => 'x', 100);
    try {
      await connection.closed(requestTimeoutMs + 3000);
    } finally {
      stop();
    }
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it('a request sent at once is answered as usual', async () => {
    const connection = await connect(running.port);
    const body = JSON.stringify({ paste: 'hello' });
    connection.socket.write(
      `POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    await connection.closed(3000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(connection.received()).toContain('{"received":{"paste":"hello"}}');
  });

  it('a keep-alive connection idle past both deadlines still serves its next request', async () => {
    const connection = await connect(running.port);
    connection.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await connection.receivedText('hello', 3000);
    // Idle between requests (within the keep-alive timeout) is not a slow request.
    await new Promise((resolve) => setTimeout(resolve, pastBothDeadlines));
    expect(connection.socket.destroyed).toBe(false);
    connection.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await connection.closed(3000);
    const answers = connection.received().match(/HTTP\/1\.1 \d{3} [^\r]*/g);
    expect(answers).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
  });

  it('by default the headers must arrive within 20 s and the whole request within 30 s', () => {
    expect(defaults.server.headersTimeout).toBe(20_000);
    expect(defaults.server.requestTimeout).toBe(30_000);
  });
});
