import { Readable, Transform, type TransformCallback } from 'node:stream';
import { SizeMismatchError } from './object-store.js';

/**
 * Passes bytes through while counting them: fails with SizeMismatchError as soon as one byte more
 * than `size` arrives (so an oversized upload is cut off, not stored first), and at the end when
 * fewer arrived.
 */
export class ExactSize extends Transform {
  private received = 0;

  constructor(private readonly size: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.size) done(new SizeMismatchError(this.size, 'more'));
    else done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    done(this.received === this.size ? null : new SizeMismatchError(this.size, this.received));
  }
}

/** A Node stream of either kind of body. */
export function nodeReadable(body: Readable | ReadableStream<Uint8Array>): Readable {
  return body instanceof Readable ? body : Readable.fromWeb(body as import('node:stream/web').ReadableStream);
}
