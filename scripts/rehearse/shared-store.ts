import { createHash, randomBytes } from 'node:crypto';
import type { ObjectStore } from '../../packages/storage/src/index.js';

/**
 * The shared store's steps (decisions, wave 4, "Both services: beyond one machine"): a paste
 * attachment and a release artifact each go up through one instance and come down through
 * another, byte for byte, and their objects are in the shared S3-compatible store. Each step
 * answers a row of the rehearsal's table: what it saw, and whether that passes.
 */
export type Check = [name: string, result: string, pass: boolean];

/** Small files: the steps prove where the bytes go, not how fast (the benchmarks do that). */
const FILE_BYTES = 64 * 1024;

async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function upload(url: string, bytes: Buffer, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(url, {
    method: 'PUT',
    body: new Uint8Array(bytes),
    headers: { 'Content-Type': 'application/octet-stream', ...headers },
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`PUT ${new URL(url).origin} answered ${response.status}`);
}

/** Follows redirects (a download link answers 302 to the store's URL). */
async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  const body = Buffer.from(await response.arrayBuffer());
  if (!response.ok) throw new Error(`GET ${new URL(url).origin} answered ${response.status}`);
  return body;
}

const port = (origin: string) => new URL(origin).port;
const compared = (sent: Buffer, received: Buffer) =>
  sent.equals(received) ? `${received.length} bytes, identical` : `${received.length} bytes, DIFFERENT`;

/** Declared and uploaded through instance `a`, completed and read through `b`, its file downloaded through the store. */
export async function attachmentAcrossInstances(
  instances: { a: string; b: string },
  stores: { paste: ObjectStore },
): Promise<Check[]> {
  const bytes = randomBytes(FILE_BYTES);
  const created = await call('POST', `${instances.a}/api/paste`, {
    content: 'rehearsal: a file through another instance',
    attachments: [{ size: bytes.length, name: 'rehearsal.bin', type: 'application/octet-stream' }],
  });
  const slug = created.slug as string;
  const [file] = created.attachments as Array<{ id: string; uploadUrl: string }>;
  await upload(file!.uploadUrl, bytes);
  await call('POST', `${instances.a}/api/paste/${slug}/complete`, undefined, {
    'X-Delete-Token': created.deleteToken as string,
  });
  const viewed = await call('GET', `${instances.b}/paste/${slug}/raw`, undefined, { Accept: 'application/json' });
  const [listed] = viewed.attachments as Array<{ id: string; url: string }>;
  const received = await download(listed!.url);
  const stored = await stores.paste.head(`pastes/${file!.id}`);
  return [
    [
      `paste attachment: up via :${port(instances.a)}, down via :${port(instances.b)}`,
      compared(bytes, received),
      bytes.equals(received),
    ],
    [
      'paste attachment in the shared store',
      stored ? `${stored.size} bytes` : 'missing',
      stored?.size === bytes.length,
    ],
  ];
}

/** A release made and its artifact uploaded through `a`, completed and published through `b`, downloaded through `c`. */
export async function artifactAcrossInstances(
  instances: { a: string; b: string; c: string },
  setup: { productId: string; licenseKey: string; adminHeaders: Record<string, string> },
  stores: { license: ObjectStore },
): Promise<Check[]> {
  const bytes = randomBytes(FILE_BYTES);
  const auth = setup.adminHeaders;
  const release = (
    await call('POST', `${instances.a}/api/products/${setup.productId}/releases`, { version: '1.0.0' }, auth)
  ).release as { _id: string };
  const added = await call(
    'POST',
    `${instances.a}/api/releases/${release._id}/artifacts`,
    {
      filename: 'rehearsal.tar.gz',
      platform: 'linux',
      arch: 'x86_64',
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    },
    auth,
  );
  const artifact = added.artifact as { _id: string };
  await upload(added.uploadUrl as string, bytes, added.uploadHeaders as Record<string, string>);
  await call('POST', `${instances.b}/api/releases/${release._id}/artifacts/${artifact._id}/complete`, {}, auth);
  await call('POST', `${instances.b}/api/releases/${release._id}/publish`, {}, auth);
  const answer = await call('POST', `${instances.c}/api/license/releases/upgrade`, {
    key: setup.licenseKey,
    currentVersion: '0.9.0',
  });
  const [offered] = (answer.upgrade as { artifacts: Array<{ url: string }> }).artifacts;
  // The link names the public URL (HAProxy); followed on instance c itself, which redirects to the store.
  const link = new URL(offered!.url);
  const received = await download(`${instances.c}${link.pathname}${link.search}`);
  const stored = await stores.license.head(`releases/${release._id}/${artifact._id}/rehearsal.tar.gz`);
  return [
    [
      `release artifact: up via :${port(instances.a)}, down via :${port(instances.c)}`,
      compared(bytes, received),
      bytes.equals(received),
    ],
    [
      'release artifact in the shared store',
      stored ? `${stored.size} bytes` : 'missing',
      stored?.size === bytes.length,
    ],
  ];
}
