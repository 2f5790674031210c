import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  close(): Promise<void>;
}

/**
 * Starts s3rver (a real S3-protocol server) on loopback in a child process, with one empty
 * bucket, its objects in a fresh temporary folder. A process of its own so that a test measuring
 * its own memory measures the client side only.
 *
 * `checksSignatures`: the fork that verifies SigV4 signatures (a presigned URL's signed
 * Content-Length and key are enforced, as on AWS), for the tests of those refusals; it cannot
 * list objects, nor sign some response-content-disposition values, so everything else runs
 * on s3rver itself.
 */
export async function startS3Server(
  options: { bucket?: string; checksSignatures?: boolean } = {},
): Promise<TestS3Server> {
  const bucket = options.bucket ?? 'test-bucket';
  const flavour = options.checksSignatures ? 'checks-signatures' : 'plain';
  const directory = mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const child = spawn(
    process.execPath,
    [path.join(import.meta.dirname, 's3rver-process.mjs'), directory, bucket, flavour],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: 'us-east-1',
    // s3rver's fixed development credentials.
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin.end();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
