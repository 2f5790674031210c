import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createObjectStore, describeStorage, storageSchema, storageSettingsOf } from '../src/index.js';

// The storage variables, validated once with an app's other variables (decisions.md, "Storage").
const schema = z.object({ DATA_DIR: z.string().default('./data'), ...storageSchema });
const settingsOf = (env: Record<string, string>) => storageSettingsOf(schema.parse(env));

describe('storage settings', () => {
  it('keeps objects in the data folder by default', () => {
    const settings = settingsOf({ DATA_DIR: '/srv/paste' });
    expect(settings).toEqual({ driver: 'file', root: path.resolve('/srv/paste/objects') });
    expect(createObjectStore(settings, { publicUrl: '/objects', signingSecret: 's' }).kind).toBe('file');
    expect(describeStorage(settings)).toBe('objects in /srv/paste/objects');
  });

  it('takes a folder as a file URL', () => {
    expect(settingsOf({ STORAGE_URL: 'file:///var/lib/objects' })).toEqual({
      driver: 'file',
      root: '/var/lib/objects',
    });
  });

  it('takes an S3 bucket and prefix, with the standard AWS variables and path style', () => {
    const settings = settingsOf({
      STORAGE_URL: 's3://attachments/site-a/',
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'id',
      AWS_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(settings).toEqual({
      driver: 's3',
      bucket: 'attachments',
      prefix: 'site-a',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      forcePathStyle: true,
    });
    expect(createObjectStore(settings, { publicUrl: '/objects', signingSecret: 's' }).kind).toBe('s3');
    expect(describeStorage(settings)).toBe('objects in S3 bucket attachments/site-a at http://127.0.0.1:9000');
    expect(describeStorage(settings)).not.toContain('secret');
  });

  it("leaves credentials and region to the SDK's defaults when not given", () => {
    expect(settingsOf({ STORAGE_URL: 's3://bucket' })).toEqual({
      driver: 's3',
      bucket: 'bucket',
      prefix: undefined,
      endpoint: undefined,
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
    });
  });

  it('refuses what it cannot use, naming the variable', () => {
    for (const url of ['ftp://host/x', 'file://relative', 's3://', 's3://UPPER', '/plain/path']) {
      const result = schema.safeParse({ STORAGE_URL: url });
      expect(result.success, url).toBe(false);
      expect(result.error?.issues[0]?.path).toEqual(['STORAGE_URL']);
    }
    expect(schema.safeParse({ S3_FORCE_PATH_STYLE: 'maybe' }).success).toBe(false);
    expect(() => settingsOf({ STORAGE_URL: 's3://bucket', AWS_ACCESS_KEY_ID: 'id' })).toThrow(
      'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: give both or neither',
    );
  });
});
