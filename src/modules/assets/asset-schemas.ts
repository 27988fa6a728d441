// The asset resource as the API returns it, declared once: record type, responses (with the signed upload
// and download blocks), MCP outputSchema, OpenAPI components and the module's event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
  timestamps,
} from '../../core/resource-schema.ts';
import { MapOf } from '../../core/schema.ts';

export const AssetSchema = Resource('Asset', {
  id: RecordId('ast'),
  asset_type: Enum(['image', 'video', 'audio', 'document', 'other'] as const),
  file_name: Text('contract.pdf'),
  mime_type: Text('application/pdf'),
  size_bytes: Type.Integer({ examples: [48213] }),
  checksum_sha256: NullableText('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'),
  status: Enum(['pending', 'ready', 'archived'] as const),
  related_resource_type: NullableText('contact'),
  related_resource_id: NullableText('con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
  ready_at: NullableTimestamp(),
  archived_at: NullableTimestamp(),
  ...timestamps,
});
export type Asset = Static<typeof AssetSchema>;

const signedUrl = Text(
  'https://wos.example.com/assets/content/ast_01JDB3Y5Q0ZK8X4M2N7P9R6T3V?sig=abc',
  'Signed URL.',
);

/** create_asset_upload_intent's body: the pending asset and where to PUT its bytes (null once expired). */
export const UploadIntentSchema = Type.Object(
  {
    asset: AssetSchema,
    upload: Nullable(
      Shape({
        url: signedUrl,
        method: Type.Literal('PUT'),
        headers: MapOf(Type.String(), { examples: [{ 'content-type': 'application/pdf' }] }),
        expires_at: Timestamp(),
      }),
      { description: 'null when the upload window has closed (a replay after it).' },
    ),
  },
  { additionalProperties: false },
);

/** get_asset_download_url's body: the asset and a signed GET. */
export const DownloadUrlSchema = Type.Object(
  {
    asset: AssetSchema,
    download: Shape({ url: signedUrl, method: Type.Literal('GET'), expires_at: Timestamp() }),
  },
  { additionalProperties: false },
);
