import type { ModuleDefinition } from '../../core/module.ts';
import { assetCleanupJob, assetCleanupSweep, prepareStorage } from './asset-cleanup.ts';
import { AssetSchema } from './asset-schemas.ts';
import { assetCounts } from './asset-summary-store.ts';
import type { AssetTables } from './asset-tables.ts';
import {
  archiveAsset,
  assetRecord,
  completeAssetUpload,
  createAssetUploadIntent,
  getAssetDownloadUrl,
  searchAssetsOperation,
} from './assets.ts';
import * as contentCleanup from './migrations/0008-asset-content-cleanup.ts';

const identity = { name: 'assets', scopes: ['assets:read', 'assets:write'] } as const;

export const assetsModule: ModuleDefinition<typeof identity, AssetTables> = {
  ...identity,
  migrations: { '0008-asset-content-cleanup': contentCleanup },
  operations: [
    createAssetUploadIntent,
    completeAssetUpload,
    searchAssetsOperation,
    getAssetDownloadUrl,
    archiveAsset,
  ],
  recordTypes: [assetRecord],
  events: [
    {
      name: 'asset.created',
      description: 'An upload intent registered a pending asset; data is the asset.',
      schema: AssetSchema,
    },
    {
      name: 'asset.ready',
      description: 'An upload was completed and verified; the asset can be downloaded. data is the asset.',
      schema: AssetSchema,
    },
    {
      name: 'asset.archived',
      description: 'An asset was archived (hidden from search and download); data is the asset.',
      schema: AssetSchema,
    },
  ],
  summary: [
    {
      module: 'assets',
      scope: 'assets:read',
      key: 'assets',
      compute: (db, workspaceId) => assetCounts(db, workspaceId),
    },
  ],
  jobs: [assetCleanupJob],
  periodicTasks: [assetCleanupSweep],
  startup: prepareStorage,
};
