// The BI export resource as the API returns it, declared once (responses, MCP outputSchema, OpenAPI).
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
} from '../../../core/resource-schema.ts';
import { RUN_STATUSES } from '../../../core/run-resource.ts';
import type { ExportFormat } from './export-tables.ts';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'jsonl'];

/** The media type each format's file is stored and downloaded with. */
export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv',
  jsonl: 'application/x-ndjson',
};

export const BiExportSchema = Resource('BiExport', {
  id: RecordId('biexp'),
  name: Text('Open deals by stage'),
  format: Enum(EXPORT_FORMATS, { description: 'csv (a header row, then one line per row) or jsonl.' }),
  content_type: Text('text/csv', 'The media type of the file.'),
  query_id: RecordId('biq', 'The saved query it runs (list_bi_queries).'),
  status: Enum(RUN_STATUSES, {
    description: 'Its run: queued, running, completed (the file is ready) or failed (see error).',
  }),
  run_id: Text('run_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The run that made its file (GET /v1/bi/runs/{run_id}).'),
  attempts: Type.Integer({ minimum: 0, description: 'Attempts of that run so far (retries included).' }),
  error: Nullable(
    Shape({ code: Text('resource_not_found'), message: Text('The saved query was archived.') }),
    {
      description: 'Why the run failed; null unless failed.',
    },
  ),
  row_count: Nullable(Type.Integer({ minimum: 0, examples: [1250] }), { description: 'Rows in the file.' }),
  size_bytes: Nullable(Type.Integer({ minimum: 0, examples: [48213] }), {
    description: 'Bytes of the file.',
  }),
  checksum_sha256: NullableText('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'),
  asset_id: Nullable(RecordId('ast'), { description: 'The file as an asset (assets module).' }),
  download: Nullable(
    Shape({
      url: Text(
        'https://wos.example.com/v1/assets/ast_01JDB3Y5Q0ZK8X4M2N7P9R6T3V/content?expires=1795000000&signature=abc',
        'Signed: GET it without an Authorization header until expires_at.',
      ),
      method: Type.Literal('GET'),
      expires_at: Timestamp(),
    }),
    { description: 'A fresh signed URL on each read of a completed export; null until then.' },
  ),
  completed_at: NullableTimestamp('When its current file was completed.'),
  created_by: Nullable(Type.String(), { description: 'The credential that created it.' }),
  ...timestamps,
  archived_at: NullableTimestamp(),
});
export type BiExport = Static<typeof BiExportSchema>;
export type ExportDownload = NonNullable<BiExport['download']>;
