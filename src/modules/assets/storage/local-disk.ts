import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type AssetStorage, ObjectTooLarge } from './storage.ts';

const KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Files under root, one per key; uploads land in root/.tmp and are renamed into place when complete. */
export class LocalDiskStorage implements AssetStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid storage key ${key}`);
    return path.join(this.root, ...key.split('/'));
  }

  async write(key: string, body: Readable, maxBytes: number) {
    const target = this.pathOf(key);
    const tmpDir = path.join(this.root, '.tmp');
    await mkdir(tmpDir, { recursive: true });
    const tmp = path.join(tmpDir, `${randomUUID()}.part`);
    // Opened before any byte flows, so a failure can always remove it.
    const handle = await open(tmp, 'wx');
    let sizeBytes = 0;
    const hash = createHash('sha256');
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        sizeBytes += chunk.length;
        if (sizeBytes > maxBytes) return callback(new ObjectTooLarge(maxBytes));
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    // The source is piped, not put in the pipeline: a refused upload must not destroy the request, whose
    // connection still carries the 413 answer.
    const aborted = () => {
      if (!body.readableEnded) limit.destroy(new Error('the upload was aborted'));
    };
    body.on('error', aborted);
    body.on('close', aborted);
    body.pipe(limit);
    try {
      await pipeline(limit, handle.createWriteStream());
      await mkdir(path.dirname(target), { recursive: true });
      await rename(tmp, target);
      return { sizeBytes, sha256: hash.digest('hex') };
    } catch (error) {
      body.unpipe(limit);
      await handle.close().catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    } finally {
      body.off('error', aborted);
      body.off('close', aborted);
    }
  }

  async read(key: string) {
    const file = this.pathOf(key);
    try {
      const info = await stat(file);
      return { stream: createReadStream(file), sizeBytes: info.size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}
