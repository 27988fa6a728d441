import path from 'node:path';
import type { Config } from '../../../config.ts';
import { LocalDiskStorage } from './local-disk.ts';
import type { AssetStorage } from './storage.ts';

/** The store assets use: files under WOS_DATA_DIR/assets (the only driver so far). */
export function storageFor(config: Config): AssetStorage {
  return new LocalDiskStorage(path.join(config.dataDir, 'assets'));
}
