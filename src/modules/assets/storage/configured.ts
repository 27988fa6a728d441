import path from 'node:path';
import type { Config } from '../../../config.ts';
import { LocalDiskStorage } from './local-disk.ts';
import { S3Storage } from './s3.ts';
import type { AssetStorage } from './storage.ts';

// One store per configuration (one app): its S3 client and connections are reused by every call.
const stores = new WeakMap<Config, AssetStorage>();

/**
 * The store assets and BI export files use: WOS_ASSET_STORAGE=s3, a bucket every node shares; else files
 * under WOS_DATA_DIR/assets, on this node's disk.
 */
export function storageFor(config: Config): AssetStorage {
  let store = stores.get(config);
  if (!store) {
    store = config.s3
      ? new S3Storage(config.s3)
      : // Chosen on purpose on PostgreSQL, local disk is taken to be a filesystem several nodes mount.
        new LocalDiskStorage(
          path.join(config.dataDir, 'assets'),
          config.assetStorageExplicit && Boolean(config.databaseUrl),
        );
    stores.set(config, store);
  }
  return store;
}

/** Releases the store's connections when its app closes. */
export function closeStorage(config: Config): void {
  stores.get(config)?.close?.();
  stores.delete(config);
}
