// Where an asset's bytes are in each state, and what the signed URLs and completion may do with them.
// A PUT streams into a partial file and lands at the asset's staging key; complete_asset_upload moves the
// staged file to the asset's storage key (atomic rename) and verifies that file, which no PUT ever writes,
// so what it verified is what downloads serve.
import { type FieldError, fail, notFound, validationFailed } from '../../core/errors.ts';
import { measureStored } from './asset-store.ts';
import type { AssetsTable } from './asset-tables.ts';
import type { AssetStorage } from './storage/storage.ts';

const UPLOAD_URL_SECONDS = 60 * 60;
/** A pending asset takes uploads and completion for this long after its intent; then it is expired. */
const UPLOAD_WINDOW_MS = 24 * 60 * 60 * 1000;

type Placed = Pick<AssetsTable, 'storage_key'>;

/** Where a PUT's bytes wait for completion; the storage key itself holds only what completion verified. */
export function stagingKey(row: Placed): string {
  return `uploads/${row.storage_key}`;
}

function uploadDeadline(row: Pick<AssetsTable, 'created_at'>): Date {
  return new Date(new Date(row.created_at).getTime() + UPLOAD_WINDOW_MS);
}

/** Pending assets created before this instant are expired. */
export function windowStart(now: Date): string {
  return new Date(now.getTime() - UPLOAD_WINDOW_MS).toISOString();
}

/** An upload URL lasts an hour, never beyond the upload window; null once the window has closed. */
export function uploadUrlExpiry(row: Pick<AssetsTable, 'created_at'>, now: Date): Date | null {
  const deadline = uploadDeadline(row);
  if (deadline <= now) return null;
  const hour = new Date(now.getTime() + UPLOAD_URL_SECONDS * 1000);
  return hour < deadline ? hour : deadline;
}

const windowClosed = () =>
  fail('conflict', {
    message: 'The upload window of this asset closed 24 hours after its intent; create a new upload intent.',
  });

/** Refuses an upload (PUT or completion) of an asset that is not pending, or whose window has closed. */
export function assertUploadable(row: Pick<AssetsTable, 'status' | 'created_at'>, now: Date): void {
  if (row.status !== 'pending') {
    throw fail('conflict', {
      message: 'This asset was already completed; its content is final and takes no upload.',
    });
  }
  if (uploadDeadline(row) <= now) throw windowClosed();
}

/** What the signed content URLs require of the asset once their signature holds. */
export function assertContentAccess(
  row: Pick<AssetsTable, 'status' | 'created_at' | 'archived_at'> & { workspace_deleted_at: string | null },
  action: 'upload' | 'download',
  now: Date,
): void {
  if (row.workspace_deleted_at !== null || row.archived_at !== null) throw notFound('asset');
  if (action === 'upload') assertUploadable(row, now);
  else if (row.status !== 'ready') {
    throw fail('resource_not_found', {
      message: 'The asset has no content yet: its upload was not completed.',
    });
  }
}

/**
 * Completion's one step: the staged upload is moved to the storage key (a PUT finishing later stages a new
 * file and cannot change this one), then that file is measured against the intent. Without a staged file,
 * the storage key's file is verified: one moved by a completion whose transaction did not commit. Bytes
 * that fail the check are deleted at once; the asset stays pending for a new PUT.
 */
export async function pinUpload(storage: AssetStorage, row: AssetsTable) {
  await storage.move(stagingKey(row), row.storage_key);
  const stored = await measureStored(storage, row.storage_key);
  if (!stored) {
    throw validationFailed([
      { field: 'asset_id', message: 'no bytes were uploaded yet; PUT them to the upload URL first' },
    ]);
  }
  const errors: FieldError[] = [];
  if (stored.sizeBytes !== Number(row.size_bytes)) {
    errors.push({
      field: 'size_bytes',
      message: `the upload has ${stored.sizeBytes} bytes, the intent declared ${row.size_bytes}`,
    });
  }
  if (row.checksum_sha256 && stored.sha256 !== row.checksum_sha256) {
    errors.push({
      field: 'checksum_sha256',
      message: `the uploaded bytes have SHA-256 ${stored.sha256}, not the declared one`,
    });
  }
  if (errors.length) {
    await storage.remove(row.storage_key);
    throw validationFailed(
      errors,
      'The uploaded bytes do not match the upload intent and were discarded; the asset stays pending: upload again.',
    );
  }
  return stored;
}
