import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type AssetStorage, ObjectTooLarge } from './storage.ts';

const KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

const PARTIAL_SUFFIX = '.part';

/** Files under root, one per key; writes land in root/.tmp/<uuid>.part and are renamed into place when complete. */
export class LocalDiskStorage implements AssetStorage {
  constructor(private readonly root: string) {}

  private get tmpDir(): string {
    return path.join(this.root, '.tmp');
  }

  private pathOf(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid storage key ${key}`);
    return path.join(this.root, ...key.split('/'));
  }

  async write(key: string, body: Readable, maxBytes: number) {
    const target = this.pathOf(key);
    await mkdir(this.tmpDir, { recursive: true });
    const tmp = path.join(this.tmpDir, `${randomUUID()}${PARTIAL_SUFFIX}`);
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

  async move(from: string, to: string) {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await rename(source, target);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async remove(key: string) {
    await rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string) {
    const keys: string[] = [];
    const walk = async (dir: string, keyPrefix: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const key = `${keyPrefix}/${entry.name}`;
        if (entry.isDirectory()) await walk(path.join(dir, entry.name), key);
        else if (entry.isFile() && KEY_PATTERN.test(key)) keys.push(key);
      }
    };
    await walk(this.pathOf(prefix), prefix);
    return keys;
  }

  async removePartials(olderThan?: Date) {
    let names: string[];
    try {
      names = await readdir(this.tmpDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names.filter((n) => n.endsWith(PARTIAL_SUFFIX))) {
      const file = path.join(this.tmpDir, name);
      // A write in progress keeps its file's modification time fresh.
      const info = olderThan ? await stat(file).catch(() => null) : null;
      if (olderThan && (!info || info.mtime >= olderThan)) continue;
      await rm(file, { force: true });
      removed++;
    }
    return removed;
  }
}
