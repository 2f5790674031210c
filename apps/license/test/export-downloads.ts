import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';

// A full collection on demand makes the memory samples show live data only, not garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

export interface Download {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: number;
  body?: Buffer;
}

/** GETs a file over plain HTTP; with `keep: false` the bytes are counted and dropped (no client-side buffering). */
export function download(baseUrl: string, pathname: string, cookie: string, keep = true): Promise<Download> {
  return new Promise((resolve, reject) => {
    http
      .get(`${baseUrl}${pathname}`, { headers: { Cookie: cookie } }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (keep) chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes,
            body: keep ? Buffer.concat(chunks) : undefined,
          }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Peak live memory (heap + buffers, after a full GC) above the starting point while `work` runs. */
export async function peakLiveGrowth(work: () => Promise<unknown>): Promise<number> {
  const live = () => {
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  const start = live();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, live());
  }, 200);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, live()) - start;
}
