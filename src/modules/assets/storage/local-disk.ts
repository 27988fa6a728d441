import { randomUUID } from 'node:crypto';
import { createReadStream, type Dirent } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type AssetStorage, assertKey, KEY_PATTERN, meter } from './storage.ts';

const PARTIAL_SUFFIX = '.part';

/** Files under root, one per key; writes land in root/.tmp/<uuid>.part and are renamed into place when complete. */
export class LocalDiskStorage implements AssetStorage {
  /** shared: WOS_ASSET_STORAGE=local set on purpose on PostgreSQL, taken to be a filesystem several nodes mount. */
  constructor(
    private readonly root: string,
    readonly shared = false,
  ) {}

  private get tmpDir(): string {
    return path.join(this.root, '.tmp');
  }

  private pathOf(key: string): string {
    assertKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async write(key: string, body: Readable, maxBytes: number) {
    const target = this.pathOf(key);
    await mkdir(this.tmpDir, { recursive: true });
    const tmp = path.join(this.tmpDir, `${randomUUID()}${PARTIAL_SUFFIX}`);
    // Opened before any byte flows, so a failure can always remove it.
    const handle = await open(tmp, 'wx');
    const metered = meter(body, maxBytes);
    try {
      await pipeline(metered.stream, handle.createWriteStream());
      await mkdir(path.dirname(target), { recursive: true });
      await rename(tmp, target);
      return metered.digest();
    } catch (error) {
      metered.detach();
      await handle.close().catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    } finally {
      metered.detach();
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
