// The products resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.
import type { Static } from '@sinclair/typebox';
import {
  DateOnly,
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';

export const ProductSchema = Resource('Product', {
  id: RecordId('prd'),
  key: Text('mobile-app'),
  name: Text('Mobile app'),
  description: NullableText('iOS and Android app for field teams.'),
  status: Enum(['active', 'sunset', 'archived'] as const),
  ...timestamps,
});
export type Product = Static<typeof ProductSchema>;

export const ProductReleaseSchema = Resource('ProductRelease', {
  id: RecordId('rel'),
  product_id: RecordId('prd'),
  version: Text('1.4.0', 'A semantic version (MAJOR.MINOR.PATCH, optional pre-release).'),
  name: NullableText('Offline mode'),
  status: Enum(['planned', 'in_progress', 'released', 'canceled'] as const),
  target_date: Nullable(DateOnly()),
  released_at: NullableTimestamp(),
  notes: NullableText('Sync works without a connection.'),
  ...timestamps,
});
export type ProductRelease = Static<typeof ProductReleaseSchema>;

export const ProductRoadmapItemSchema = Resource('ProductRoadmapItem', {
  id: RecordId('rmi'),
  product_id: RecordId('prd'),
  title: Text('Offline sync'),
  description: NullableText('Edit records without a connection; sync later.'),
  status: Enum(['idea', 'planned', 'in_progress', 'shipped', 'canceled'] as const),
  priority: Enum(['none', 'low', 'medium', 'high', 'urgent'] as const),
  release_id: Nullable(RecordId('rel')),
  project_id: Nullable(RecordId('prj')),
  project_task_id: Nullable(RecordId('ptk')),
  ...timestamps,
});
export type ProductRoadmapItem = Static<typeof ProductRoadmapItemSchema>;
