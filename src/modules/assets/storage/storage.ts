// Where asset bytes live (uploads and BI export files): the local-disk store of one node, or an
// S3-compatible bucket every node shares. The interface stays small: stream in with a size cap, stream out,
// move, remove, list, and clear partial writes.
import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';

/** The body was larger than allowed; nothing was kept. */
export class ObjectTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
  }
}

export interface AssetStorage {
  /**
   * Whether other nodes write to the same store: then a starting node cannot tell their partial writes
   * from its own crashed ones, and leaves them to the cleanup job's stale sweep.
   */
  readonly shared: boolean;
  /**
   * Streams body to key. The previous object under key is replaced only when the whole body arrived;
   * past maxBytes it fails with ObjectTooLarge, and on any failure nothing partial is left behind.
   */
  write(key: string, body: Readable, maxBytes: number): Promise<{ sizeBytes: number; sha256: string }>;
  /** The stored bytes, or null when nothing is stored under key. */
  read(key: string): Promise<{ stream: Readable; sizeBytes: number } | null>;
  /**
   * Moves the object at from to to, replacing what to held at once (never a partial object); false when
   * from holds nothing. A write to from that finishes later never changes the moved object.
   */
  move(from: string, to: string): Promise<boolean>;
  /** Deletes the object at key, if any. */
  remove(key: string): Promise<void>;
  /** The keys stored under prefix (a key's leading segments), in no particular order. */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes the partial data of writes that never finished (a crash, an aborted request): those last
   * changed before olderThan, or all of them when it is absent (at start-up of an unshared store, when no
   * write is running). Returns how many were deleted.
   */
  removePartials(olderThan?: Date): Promise<number>;
  /** Fails with a message for the operator when the store cannot be used (checked at start-up). */
  verify?(): Promise<void>;
  /** Releases connections (the app's close). */
  close?(): void;
}

/** Keys are segments of letters, digits, `_` and `-` joined by `/`: never `..`, never a leading `/`. */
export const KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

export function assertKey(key: string): void {
  if (!KEY_PATTERN.test(key)) throw new Error(`invalid storage key ${key}`);
}

/**
 * body as it streams through `stream`, counted and hashed: past maxBytes `stream` fails with
 * ObjectTooLarge. The source is piped, not put in a pipeline: a refused upload must not destroy the
 * request, whose connection still carries the 413 answer. `detach` once the write is over, either way.
 */
export function meter(body: Readable, maxBytes: number) {
  let sizeBytes = 0;
  const hash = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      sizeBytes += chunk.length;
      if (sizeBytes > maxBytes) return callback(new ObjectTooLarge(maxBytes));
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const aborted = () => {
    if (!body.readableEnded) stream.destroy(new Error('the upload was aborted'));
  };
  body.on('error', aborted);
  body.on('close', aborted);
  body.pipe(stream);
  return {
    stream,
    digest: () => ({ sizeBytes, sha256: hash.digest('hex') }),
    detach: () => {
      body.unpipe(stream);
      body.off('error', aborted);
      body.off('close', aborted);
    },
  };
}
