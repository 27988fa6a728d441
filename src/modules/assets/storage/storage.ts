// Where asset bytes live. The interface stays small so another store (S3-compatible) can be added beside
// the local-disk one: stream in with a size cap, stream out, move, remove, list, and clear partial writes.
import type { Readable } from 'node:stream';

/** The body was larger than allowed; nothing was kept. */
export class ObjectTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
  }
}

export interface AssetStorage {
  /**
   * Streams body to key. The previous object under key is replaced only when the whole body arrived;
   * past maxBytes it fails with ObjectTooLarge, and on any failure nothing partial is left behind.
   */
  write(key: string, body: Readable, maxBytes: number): Promise<{ sizeBytes: number; sha256: string }>;
  /** The stored bytes, or null when nothing is stored under key. */
  read(key: string): Promise<{ stream: Readable; sizeBytes: number } | null>;
  /**
   * Atomically moves the object at from to to, replacing what to held; false when from holds nothing.
   * A write to from that finishes later creates a new object there and never changes the moved one.
   */
  move(from: string, to: string): Promise<boolean>;
  /** Deletes the object at key, if any. */
  remove(key: string): Promise<void>;
  /** The keys stored under prefix (a key's leading segments), in no particular order. */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes the partial files of writes that never finished (a crash, an aborted request): those last
   * changed before olderThan, or all of them when it is absent (at start-up, when no write is running).
   * Returns how many were deleted.
   */
  removePartials(olderThan?: Date): Promise<number>;
}
