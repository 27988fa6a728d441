import { Type } from '@sinclair/typebox';
import type { ModuleDefinition } from '../../core/module.ts';
import { assetCleanupJob, assetCleanupSweep, removeLeftoverPartials } from './asset-cleanup.ts';
import { assetCounts } from './asset-store.ts';
import {
  archiveAsset,
  assetRecord,
  completeAssetUpload,
  createAssetUploadIntent,
  getAssetDownloadUrl,
  searchAssetsOperation,
} from './assets.ts';

const nullableString = Type.Union([Type.String(), Type.Null()]);
const assetSchema = Type.Object({
  id: Type.String(),
  asset_type: Type.String({ description: 'image, video, audio, document or other' }),
  file_name: Type.String(),
  mime_type: Type.String(),
  size_bytes: Type.Integer(),
  checksum_sha256: nullableString,
  status: Type.String({ description: 'pending, ready or archived' }),
  related_resource_type: nullableString,
  related_resource_id: nullableString,
  ready_at: nullableString,
  archived_at: nullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const assetsModule: ModuleDefinition = {
  name: 'assets',
  operations: [createAssetUploadIntent, completeAssetUpload, searchAssetsOperation, getAssetDownloadUrl, archiveAsset],
  recordTypes: [assetRecord],
  events: [
    { name: 'asset.created', description: 'An upload intent registered a pending asset; data is the asset.', schema: assetSchema },
    {
      name: 'asset.ready',
      description: 'An upload was completed and verified; the asset can be downloaded. data is the asset.',
      schema: assetSchema,
    },
    { name: 'asset.archived', description: 'An asset was archived (hidden from search and download); data is the asset.', schema: assetSchema },
  ],
  summary: [{ module: 'assets', scope: 'assets:read', key: 'assets', compute: (db, workspaceId) => assetCounts(db, workspaceId) }],
  jobs: [assetCleanupJob],
  periodicTasks: [assetCleanupSweep],
  startup: removeLeftoverPartials,
};
