// Where asset bytes live. The interface stays small so another store (S3-compatible) can be added beside
// the local-disk one: stream in with a size cap, stream out.
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
}
