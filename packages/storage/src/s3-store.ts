// The AWS SDK (tens of modules, ≈ 5 MB of heap and 20 MB of RSS at start-up) is loaded when a
// store first talks to S3: a service on the filesystem store never loads it (docs/performance.md).
import type { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { attachmentDisposition } from './content-disposition.js';
import { ExactSize, nodeReadable } from './exact-size.js';
import {
  assertValidKey,
  assertValidSize,
  lifetimeOf,
  ObjectNotFoundError,
  type DownloadUrlOptions,
  type ObjectInfo,
  type ObjectStore,
  type PresignedRequest,
  type UploadUrlOptions,
} from './object-store.js';

export interface S3StoreOptions {
  bucket: string;
  /** Keys are stored under `prefix/` when given (several services or sites in one bucket). */
  prefix?: string;
  /** A self-hosted or other S3-compatible store's URL (AWS_ENDPOINT_URL_S3); AWS's own when absent. */
  endpoint?: string;
  region: string;
  /** Absent: the AWS SDK's default chain (environment, profiles, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `bucket` in the path rather than the host name: what most self-hosted stores need. */
  forcePathStyle?: boolean;
  /** The clock URLs are signed with (tests make lapsed URLs with one set back). */
  now?: () => Date;
}

/** Any S3-compatible store through the AWS SDK: clients move the bytes by presigned URLs, straight to the bucket. */
export class S3ObjectStore implements ObjectStore {
  readonly kind = 's3';
  private readonly options: S3StoreOptions;
  private connection?: Promise<S3Connection>;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly now: () => Date;

  constructor(options: S3StoreOptions) {
    this.options = options;
    this.bucket = options.bucket;
    this.prefix = options.prefix ? `${options.prefix.replace(/^\/+|\/+$/g, '')}/` : '';
    this.now = options.now ?? (() => new Date());
  }

  async uploadUrl(key: string, options: UploadUrlOptions): Promise<PresignedRequest> {
    assertValidSize(options.size);
    const lifetime = lifetimeOf(options.expiresInSeconds);
    const { sdk } = await this.connect();
    const command = new sdk.PutObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ContentLength: options.size,
    });
    // Content-Length is signed: the store refuses a body of any other length.
    return this.presign(command, 'PUT', lifetime, new Set(['content-length']));
  }

  async downloadUrl(key: string, options: DownloadUrlOptions = {}): Promise<PresignedRequest> {
    const { sdk } = await this.connect();
    const command = new sdk.GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: attachmentDisposition(options.fileName),
      ResponseContentType: 'application/octet-stream',
    });
    return this.presign(command, 'GET', lifetimeOf(options.expiresInSeconds));
  }

  async head(key: string): Promise<ObjectInfo | undefined> {
    const { sdk, client } = await this.connect();
    try {
      const found = await client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { key, size: found.ContentLength ?? 0, lastModified: found.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(sdk, error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.connect();
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
  }

  async *list(prefix = ''): AsyncIterable<ObjectInfo> {
    const { sdk, client } = await this.connect();
    const pages = sdk.paginateListObjectsV2({ client }, { Bucket: this.bucket, Prefix: this.prefix + prefix });
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        yield {
          key: object.Key.slice(this.prefix.length),
          size: object.Size ?? 0,
          lastModified: object.LastModified ?? new Date(0),
        };
      }
    }
  }

  async put(key: string, body: Readable | ReadableStream<Uint8Array>, options: { size: number }): Promise<void> {
    assertValidSize(options.size);
    const { sdk, client } = await this.connect();
    const source = nodeReadable(body);
    // Counted on the way: a body of another length aborts the request rather than hanging it.
    const counted = new ExactSize(options.size);
    const abort = new AbortController();
    const refused = new Promise<never>((_resolve, reject) => {
      counted.once('error', (error) => {
        abort.abort(error);
        reject(error);
      });
    });
    refused.catch(() => undefined); // answered through the race below
    source.once('error', (error) => counted.destroy(error));
    source.pipe(counted);
    try {
      await Promise.race([
        client.send(
          new sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key: this.objectKey(key),
            Body: counted,
            ContentLength: options.size,
          }),
          { abortSignal: abort.signal },
        ),
        refused,
      ]);
    } catch (error) {
      source.destroy();
      counted.destroy();
      throw counted.errored ?? error;
    }
  }

  async get(key: string, options: { range?: { start: number; end?: number } } = {}): Promise<Readable> {
    const range = options.range ? `bytes=${options.range.start}-${options.range.end ?? ''}` : undefined;
    const { sdk, client } = await this.connect();
    try {
      const found = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key), Range: range }),
      );
      return found.Body as Readable;
    } catch (error) {
      if (isNotFound(sdk, error)) throw new ObjectNotFoundError(key);
      throw error;
    }
  }

  /** The SDK and this store's client, loaded and made at the first call. */
  private connect(): Promise<S3Connection> {
    this.connection ??= loadSdk().then(({ sdk, presigner }) => ({
      sdk,
      presigner,
      client: new sdk.S3Client({
        endpoint: this.options.endpoint,
        region: this.options.region,
        credentials: this.options.credentials,
        forcePathStyle: this.options.forcePathStyle ?? false,
        // The SDK's default checksums would be signed into presigned URLs (a checksum of no body)
        // and sent as aws-chunked trailers, which many S3-compatible stores do not accept.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    }));
    return this.connection;
  }

  private objectKey(key: string): string {
    assertValidKey(key);
    return this.prefix + key;
  }

  private async presign(
    command: PutObjectCommand | GetObjectCommand,
    method: 'PUT' | 'GET',
    lifetime: number,
    signableHeaders?: Set<string>,
  ): Promise<PresignedRequest> {
    const { presigner, client } = await this.connect();
    const signingDate = this.now();
    const url = await presigner.getSignedUrl(client, command, { expiresIn: lifetime, signingDate, signableHeaders });
    // SigV4 counts from the signing time in whole seconds.
    const expiresAt = new Date((Math.floor(signingDate.getTime() / 1000) + lifetime) * 1000);
    return { url, method, headers: {}, expiresAt };
  }
}

type S3Sdk = typeof import('@aws-sdk/client-s3');
interface S3Connection {
  sdk: S3Sdk;
  presigner: typeof import('@aws-sdk/s3-request-presigner');
  client: S3Client;
}

let sdkLoaded: Promise<{ sdk: S3Sdk; presigner: S3Connection['presigner'] }> | undefined;
const loadSdk = () =>
  (sdkLoaded ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]).then(
    ([sdk, presigner]) => ({ sdk, presigner }),
  ));

function isNotFound(sdk: S3Sdk, error: unknown): boolean {
  return (
    error instanceof sdk.S3ServiceException &&
    (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)
  );
}
