export type AssetType = 'image' | 'video' | 'audio' | 'document' | 'other';
export type AssetStatus = 'pending' | 'ready' | 'archived';

export interface AssetsTable {
  workspace_id: string;
  id: string;
  asset_type: AssetType;
  file_name: string;
  mime_type: string;
  /** Declared by the intent; after completion, the size of the stored bytes (equal by then). */
  size_bytes: number;
  /** Declared by the intent when given; after completion, the digest of the stored bytes. */
  checksum_sha256: string | null;
  status: AssetStatus;
  related_resource_type: string | null;
  related_resource_id: string | null;
  /** Where the storage driver keeps the bytes; never shown to clients. */
  storage_key: string;
  ready_at: string | null;
  archived_at: string | null;
  /** When the cleanup job deleted the bytes of this archived or expired asset. */
  content_deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AssetTables {
  assets: AssetsTable;
}
