import { Type } from '@sinclair/typebox';
import { checkAmountEntitlement } from '../../core/billing.ts';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { fail, notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { checkRelatedRecord } from '../../core/related-record.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { AssetSchema, DownloadUrlSchema, UploadIntentSchema } from './asset-schemas.ts';
import {
  assetBytesInUse,
  findAsset,
  insertAsset,
  searchAssets,
  toAsset,
  updateAssetRow,
} from './asset-store.ts';
import type { AssetsTable } from './asset-tables.ts';
import { signedUrl, signingKey } from './signing.ts';
import { storageFor } from './storage/configured.ts';
import { assertUploadable, pinUpload, uploadUrlExpiry, windowStart } from './upload-lifecycle.ts';

/**
 * GET /v1/assets/{asset_id} is get_asset_download_url (ready assets only), so the generated record lookup
 * lives at /v1/assets/records/{asset_id}: it shows pending assets too.
 */
export const assetRecord = defineRecordType({
  type: 'asset',
  module: 'assets',
  table: 'assets',
  collection: '/v1/assets/records',
  key: 'asset',
  readScope: 'assets:read',
  hiddenWhen: 'archived_at',
  schema: AssetSchema,
  toResource: toAsset,
});

const DOWNLOAD_URL_SECONDS = 15 * 60;

const assetType = Enum(['image', 'video', 'audio', 'document', 'other'] as const);
const relatedType = Enum([
  'contact',
  'company',
  'deal',
  'task',
  'support_ticket',
  'cms_site',
  'cms_entry',
  'marketing_campaign',
  'marketing_post',
] as const);
const assetId = Type.String({ minLength: 1 });

/** The signed PUT for a pending asset, or null once its upload window has closed. */
async function uploadBlock(
  ctx: OperationContext,
  row: Pick<AssetsTable, 'workspace_id' | 'id' | 'mime_type' | 'created_at'>,
) {
  const expiresAt = uploadUrlExpiry(row, ctx.clock.now());
  if (!expiresAt) return null;
  const { url, expires_at } = signedUrl(
    ctx.config.publicUrl,
    await signingKey(ctx.db),
    'upload',
    row,
    expiresAt,
  );
  return { url, method: 'PUT', headers: { 'content-type': row.mime_type }, expires_at };
}

export const createAssetUploadIntent = defineOperation({
  name: 'create_asset_upload_intent',
  module: 'assets',
  scopes: ['assets:write'],
  kind: 'create',
  creates: 'asset',
  summary: 'Start an asset upload',
  description:
    'Registers a file and returns a pending asset with upload {url, method PUT, headers, expires_at}: PUT the raw bytes there (no Authorization header; valid one hour; at most size_bytes, which the service caps), then call complete_asset_upload within 24 hours. The asset_bytes entitlement caps ready plus pending bytes (billing_limit_exceeded). A related record must exist. A retry returns a fresh upload URL. Emits asset.created.',
  input: Strict({
    asset_type: assetType,
    file_name: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[^/\\\\\\u0000-\\u001f\\u007f]+$',
    }),
    mime_type: Type.String({
      maxLength: 255,
      pattern:
        '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(; ?[A-Za-z0-9_.-]+=[A-Za-z0-9_.-]+)*$',
      description: 'Served on download, e.g. image/png.',
    }),
    size_bytes: Type.Integer({ minimum: 0 }),
    checksum_sha256: Type.Optional(
      Type.String({
        pattern: '^[A-Fa-f0-9]{64}$',
        description: 'Checked on completion.',
      }),
    ),
    related_resource_type: Type.Optional(relatedType),
    related_resource_id: Type.Optional(Type.String({ minLength: 1 })),
  }),
  rest: { method: 'POST', path: '/v1/assets' },
  responseKey: 'asset',
  response: UploadIntentSchema,
  handler: async (ctx, input) => {
    if (input.size_bytes > ctx.config.maxUploadBytes) {
      throw validationFailed([
        {
          field: 'size_bytes',
          message: `must not exceed the upload limit of ${ctx.config.maxUploadBytes} bytes`,
        },
      ]);
    }
    await checkRelatedRecord(ctx, input);
    await checkAmountEntitlement(ctx.db, ctx.dialect, ctx.workspaceId, {
      name: 'asset_bytes',
      adding: input.size_bytes,
      used: () => assetBytesInUse(ctx.db, ctx.workspaceId, windowStart(ctx.clock.now())),
      message: (maximum, used) =>
        `The workspace may store at most ${maximum} bytes of assets (asset_bytes); ${used} are stored or pending.`,
    });
    const id = newId('ast');
    const row: AssetsTable = {
      workspace_id: ctx.workspaceId,
      id,
      asset_type: input.asset_type,
      file_name: input.file_name,
      mime_type: input.mime_type.toLowerCase(),
      size_bytes: input.size_bytes,
      checksum_sha256: input.checksum_sha256?.toLowerCase() ?? null,
      status: 'pending',
      related_resource_type: input.related_resource_type ?? null,
      related_resource_id: input.related_resource_id ?? null,
      storage_key: `${ctx.workspaceId}/${id}`,
      ready_at: null,
      archived_at: null,
      content_deleted_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertAsset(ctx.db, row);
    const asset = toAsset(row);
    ctx.audit({ targetType: 'asset', targetId: id, changedFields: inputFields(input) });
    ctx.emit({ name: 'asset.created', targetType: 'asset', targetId: id, data: asset });
    return { body: { asset, upload: await uploadBlock(ctx, row) }, createdId: id };
  },
  replay: async (ctx, asset) => ({
    asset,
    upload:
      asset.status === 'pending'
        ? await uploadBlock(ctx, {
            workspace_id: ctx.workspaceId,
            id: String(asset.id),
            mime_type: String(asset.mime_type),
            created_at: String(asset.created_at),
          })
        : null,
  }),
});

export const completeAssetUpload = defineOperation({
  name: 'complete_asset_upload',
  module: 'assets',
  scopes: ['assets:write'],
  kind: 'action',
  summary: 'Complete an asset upload',
  description:
    'Checks the uploaded bytes (size equals size_bytes; SHA-256 matches checksum_sha256 if given) and makes the asset ready with final content (a later PUT is conflict). On a mismatch, validation_failed says why, the bytes are discarded and the asset stays pending (upload again). A ready asset is returned unchanged; 24 hours after the intent it is expired (conflict: make a new intent). Emits asset.ready.',
  input: Strict({ asset_id: assetId }),
  rest: { method: 'POST', path: '/v1/assets/{asset_id}/complete' },
  responseKey: 'asset',
  handler: async (ctx, input) => {
    const row = await findAsset(ctx.db, ctx.workspaceId, input.asset_id, ctx.dialect);
    if (!row) throw notFound('asset');
    if (row.status === 'ready') {
      ctx.audit({ targetType: 'asset', targetId: row.id, action: 'complete', changedFields: [] });
      return { body: { asset: toAsset(row) } };
    }
    assertUploadable(row, ctx.clock.now());
    const stored = await pinUpload(storageFor(ctx.config), row);
    const changes = {
      status: 'ready' as const,
      size_bytes: stored.sizeBytes,
      checksum_sha256: stored.sha256,
      ready_at: ctx.now,
      updated_at: ctx.now,
    };
    await updateAssetRow(ctx.db, ctx.workspaceId, row.id, changes);
    const asset = toAsset({ ...row, ...changes });
    ctx.audit({
      targetType: 'asset',
      targetId: row.id,
      action: 'complete',
      changedFields: ['status', 'size_bytes', 'checksum_sha256', 'ready_at'],
    });
    ctx.emit({ name: 'asset.ready', targetType: 'asset', targetId: row.id, data: asset });
    return { body: { asset } };
  },
});

export const searchAssetsOperation = defineOperation({
  name: 'search_assets',
  module: 'assets',
  scopes: ['assets:read'],
  kind: 'read',
  summary: 'Search assets',
  description:
    'Lists unarchived assets, newest first; query matches the file name; mime_type is exact or a family (image/*). get_asset_download_url serves the bytes.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    asset_type: Type.Optional(assetType),
    mime_type: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    status: Type.Optional(Enum(['pending', 'ready'] as const)),
    related_resource_type: Type.Optional(relatedType),
    related_resource_id: Type.Optional(Type.String({ minLength: 1 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/assets' },
  heavy: heavyFilters({
    indexed: ['asset_type', 'status'],
    scans: ['mime_type', 'related_resource_type', 'related_resource_id'],
  }),
  responseKey: 'assets',
  handler: async (ctx, input) => {
    const page = await searchAssets(ctx.db, ctx.workspaceId, input, pageRequest('search_assets', input));
    return { body: listBody('assets', page) };
  },
});

export const getAssetDownloadUrl = defineOperation({
  name: 'get_asset_download_url',
  module: 'assets',
  scopes: ['assets:read'],
  kind: 'read',
  summary: 'Get a download URL for an asset',
  description:
    'Returns a ready asset with download {url, method GET, expires_at}: a signed URL (no Authorization header) serving the bytes with the stored mime type and file name. Pending and archived assets are resource_not_found.',
  input: Strict({
    asset_id: assetId,
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: 604_800,
        description: 'Default 900.',
      }),
    ),
  }),
  rest: { method: 'GET', path: '/v1/assets/{asset_id}' },
  responseKey: 'asset',
  response: DownloadUrlSchema,
  handler: async (ctx, input) => {
    const row = await findAsset(ctx.db, ctx.workspaceId, input.asset_id);
    if (!row) throw notFound('asset');
    if (row.status !== 'ready') {
      throw fail('resource_not_found', {
        message: 'The asset has no content yet: its upload was not completed.',
      });
    }
    const seconds = input.expires_in_seconds ?? DOWNLOAD_URL_SECONDS;
    const expiresAt = new Date(ctx.clock.now().getTime() + seconds * 1000);
    const { url, expires_at } = signedUrl(
      ctx.config.publicUrl,
      await signingKey(ctx.db),
      'download',
      row,
      expiresAt,
    );
    return { body: { asset: toAsset(row), download: { url, method: 'GET', expires_at } } };
  },
});

export const archiveAsset = defineOperation({
  name: 'archive_asset',
  module: 'assets',
  scopes: ['assets:write'],
  kind: 'archive',
  summary: 'Archive an asset',
  description:
    'Archives an asset: gone from search_assets, lookups and downloads (issued URLs stop working); its history stays readable. A background job deletes its bytes. Emits asset.archived.',
  input: Strict({ asset_id: assetId }),
  rest: { method: 'DELETE', path: '/v1/assets/{asset_id}' },
  responseKey: 'asset',
  handler: async (ctx, input) => {
    const row = await findAsset(ctx.db, ctx.workspaceId, input.asset_id);
    if (!row) throw notFound('asset');
    const changes = { status: 'archived' as const, archived_at: ctx.now, updated_at: ctx.now };
    await updateAssetRow(ctx.db, ctx.workspaceId, row.id, changes);
    const asset = toAsset({ ...row, ...changes });
    ctx.audit({ targetType: 'asset', targetId: row.id, changedFields: ['status', 'archived_at'] });
    ctx.emit({ name: 'asset.archived', targetType: 'asset', targetId: row.id, data: asset });
    return { body: { asset } };
  },
});
