import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum, Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { ProductReleaseSchema } from './product-schemas.ts';
import { findRelease, insertRelease, listReleases, toRelease, updateReleaseRow } from './product-store.ts';
import type { ProductReleasesTable, ReleaseStatus } from './product-tables.ts';
import { parseVersion, versionSortKey } from './version-key.ts';

export const releaseRecord = defineRecordType({
  type: 'product_release',
  module: 'products',
  table: 'product_releases',
  collection: '/v1/products/releases',
  key: 'product_release',
  readScope: 'products:read',
  schema: ProductReleaseSchema,
  toResource: toRelease,
});

const releaseStatus = (description?: string) =>
  Enum(['planned', 'in_progress', 'released', 'canceled'] as const, description ? { description } : {});
const releasedAt = 'released sets released_at; leaving it clears it.';
// semver.org's own expression for a version (no leading v); the server also checks it with semver.
const SEMVER =
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)' +
  '(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$';
const version = Type.String({
  maxLength: 100,
  pattern: SEMVER,
  description: 'E.g. 2.4.0 or 3.0.0-rc.1; unique per product.',
});
const name = Type.String({ minLength: 1, maxLength: 200 });
const notes = Type.String({ maxLength: 50_000 });
const targetDate = Type.String({ format: 'date' });

function checkedVersion(value: string) {
  const parsed = parseVersion(value);
  if (!parsed) {
    throw validationFailed([
      {
        field: 'version',
        message: 'must be a semantic version such as 1.4.0 or 2.0.0-beta.1 (no leading v)',
      },
    ]);
  }
  return { version: value, version_sort: versionSortKey(parsed) };
}

/** Two writes racing to one version: the loser gets the answer the pre-check gives. */
const writeUnique = (version: string, write: () => Promise<unknown>) =>
  uniquely(write, 'version', `${version} already exists for this product`);

function emitFor(
  ctx: OperationContext,
  before: ReleaseStatus | undefined,
  release: ReturnType<typeof toRelease>,
  created: boolean,
) {
  const base = { targetType: 'product_release', targetId: release.id, data: release };
  if (created) ctx.emit({ name: 'release.created', ...base });
  if (release.status === 'released' && before !== 'released') ctx.emit({ name: 'release.released', ...base });
  else if (!created) ctx.emit({ name: 'release.updated', ...base });
}

export const createRelease = defineOperation({
  name: 'create_product_release',
  module: 'products',
  scopes: ['products:write'],
  kind: 'create',
  creates: 'product_release',
  summary: 'Create a product release',
  description:
    'Creates a release of a product with a semantic version (unique per product). Link roadmap items with release_id. Emits release.created, plus release.released when created released.',
  input: Strict({
    product_id: Type.String({ minLength: 1 }),
    version,
    name: Type.Optional(name),
    status: Type.Optional(releaseStatus(`Default planned. ${releasedAt}`)),
    target_date: Type.Optional(targetDate),
    notes: Type.Optional(notes),
  }),
  rest: { method: 'POST', path: '/v1/products/releases' },
  responseKey: 'product_release',
  handler: async (ctx, input) => {
    const checked = checkedVersion(input.version);
    await ctx.requireRecord('product', input.product_id);
    const status = (input.status ?? 'planned') as ReleaseStatus;
    const row: ProductReleasesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('rel'),
      product_id: input.product_id,
      ...checked,
      name: input.name ?? null,
      status,
      target_date: input.target_date ?? null,
      released_at: status === 'released' ? ctx.now : null,
      notes: input.notes ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await writeUnique(input.version, () => insertRelease(ctx.db, row));
    const release = toRelease(row);
    ctx.audit({ targetType: 'product_release', targetId: row.id, changedFields: inputFields(input) });
    emitFor(ctx, undefined, release, true);
    return { body: { product_release: release }, createdId: row.id };
  },
});

export const listReleasesOperation = defineOperation({
  name: 'list_product_releases',
  module: 'products',
  scopes: ['products:read'],
  kind: 'read',
  summary: 'List product releases',
  description:
    'Lists releases, highest semantic version first (2.0.0, 2.0.0-rc.2, 1.10.0 ...); query matches version, name and notes.',
  input: Strict({
    product_id: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(releaseStatus()),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/products/releases' },
  responseKey: 'product_releases',
  handler: async (ctx, input) => {
    const page = await listReleases(
      ctx.db,
      ctx.workspaceId,
      input as Parameters<typeof listReleases>[2],
      pageRequest('list_product_releases', input),
    );
    return { body: listBody('product_releases', page) };
  },
});

const UPDATABLE = ['name', 'status', 'target_date', 'notes'] as const;

export const updateRelease = defineOperation({
  name: 'update_product_release',
  module: 'products',
  scopes: ['products:write'],
  kind: 'update',
  summary: 'Update a product release',
  description:
    "Changes a release's version (unique per product), name, status, target_date or notes. Emits release.released when it becomes released, otherwise release.updated.",
  input: Strict({
    release_id: Type.String({ minLength: 1 }),
    version: Type.Optional(version),
    name: Type.Optional(Nullable(name)),
    status: Type.Optional(releaseStatus(releasedAt)),
    target_date: Type.Optional(Nullable(targetDate)),
    notes: Type.Optional(Nullable(notes)),
  }),
  rest: { method: 'PATCH', path: '/v1/products/releases/{release_id}' },
  responseKey: 'product_release',
  handler: async (ctx, input) => {
    requireSomeField(input, ['version', ...UPDATABLE]);
    const checked = input.version === undefined ? undefined : checkedVersion(input.version);
    const row = await findRelease(ctx.db, ctx.workspaceId, input.release_id);
    if (!row) throw notFound('product release');
    const { changes, changed } = diffFields(row, input, UPDATABLE);
    if (checked && checked.version !== row.version) {
      Object.assign(changes, checked);
      changed.push('version');
    }
    if (changes.status !== undefined) {
      changes.released_at = changes.status === 'released' ? ctx.now : null;
      if (row.released_at !== changes.released_at) changed.push('released_at');
    }
    const next = changed.length ? { ...row, ...changes, updated_at: ctx.now } : row;
    if (changed.length) {
      await writeUnique(next.version, () =>
        updateReleaseRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now }),
      );
    }
    const release = toRelease(next);
    ctx.audit({ targetType: 'product_release', targetId: row.id, changedFields: changed });
    if (changed.length) emitFor(ctx, row.status, release, false);
    return { body: { product_release: release } };
  },
});
