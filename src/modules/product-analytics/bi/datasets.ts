// Custom datasets (item 2): a named, described subset of a template (chosen columns, fixed filters, column
// descriptions), addressable by its key in every query; previewed (first rows) before it is saved.
import { type Static, Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, fail, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import { BiDatasetSchema, BiResultSchema } from './bi-schemas.ts';
import { datasetKeyTaken, insertDataset, listDatasets, toBiDataset } from './bi-store.ts';
import type { ResolvedDataset } from './compile-query.ts';
import { checkFilter } from './filters.ts';
import { ColumnName, DatasetKey, FilterSchema } from './query-definition.ts';
import { previewRows } from './run-query.ts';
import { findTemplate, TEMPLATES } from './templates.ts';

export const biDatasetRecord = defineRecordType({
  type: 'bi_dataset',
  module: 'product_analytics_bi',
  table: 'bi_datasets',
  collection: '/v1/bi/datasets',
  key: 'dataset',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  schema: BiDatasetSchema,
  toResource: toBiDataset,
});

const definitionFields = {
  template_key: Enum(
    TEMPLATES.map((t) => t.key),
    { description: 'The template it narrows (list_bi_templates).' },
  ),
  columns: Type.Optional(
    Type.Array(ColumnName('A template column.'), {
      minItems: 1,
      maxItems: 50,
      description: 'The template columns it exposes (default: all). Money needs its currency column.',
    }),
  ),
  filters: Type.Optional(
    Type.Array(FilterSchema, { maxItems: 20, description: 'Applied to every query of the dataset.' }),
  ),
  column_descriptions: Type.Optional(
    MapOf(Type.String({ minLength: 1, maxLength: 500 }), {
      description: 'Column name -> description shown instead of the template one.',
    }),
  ),
};

type Definition = Static<ReturnType<typeof Strict<typeof definitionFields>>>;

/** Checks a dataset definition against its template and resolves it (errors name the input fields). */
function resolveDefinition(key: string, input: Definition): ResolvedDataset {
  const template = findTemplate(input.template_key)!;
  const byName = new Map(template.columns.map((c) => [c.name, c]));
  const errors: FieldError[] = [];
  const chosen = input.columns ?? template.columns.map((c) => c.name);
  const seen = new Set<string>();
  for (const [i, name] of chosen.entries()) {
    const column = byName.get(name);
    if (!column)
      errors.push({ field: `columns[${i}]`, message: `is not a column of ${template.key}: ${name}` });
    else if (seen.has(name)) errors.push({ field: `columns[${i}]`, message: `repeats ${name}` });
    else if (column.currency_column && !chosen.includes(column.currency_column)) {
      errors.push({
        field: `columns[${i}]`,
        message: `is money: add its currency column ${column.currency_column}`,
      });
    }
    seen.add(name);
  }
  for (const name of Object.keys(input.column_descriptions ?? {})) {
    if (!seen.has(name)) {
      errors.push({ field: `column_descriptions.${name}`, message: 'is not a column of the dataset' });
    }
  }
  const filters = input.filters ?? [];
  for (const [i, f] of filters.entries()) checkFilter(f, byName, `filters[${i}]`, errors);
  if (errors.length) throw validationFailed(errors);
  const described = input.column_descriptions ?? {};
  return {
    key,
    id: null,
    template,
    columns: template.columns
      .filter((c) => seen.has(c.name))
      .map((c) => ({ ...c, description: described[c.name] ?? c.description })),
    fixedFilters: filters,
  };
}

export const createBiDataset = defineOperation({
  name: 'create_bi_dataset',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  example: {
    key: 'won_deals',
    template_key: 'crm_pipeline',
    filters: [{ column: 'stage_kind', operator: 'eq', value: 'won' }],
  },
  creates: 'bi_dataset',
  summary: 'Create a custom BI dataset',
  description:
    'Saves a named subset of a BI template: chosen columns, fixed filters applied to every query, and ' +
    'column descriptions. Its key (unique in the workspace, never a template key) is then a dataset_key of ' +
    'run_bi_query. Preview it first with preview_bi_dataset. Names are checked against the template.',
  input: Strict({
    key: DatasetKey,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    ...definitionFields,
  }),
  rest: { method: 'POST', path: '/v1/bi/datasets' },
  responseKey: 'dataset',
  handler: async (ctx, input) => {
    if (findTemplate(input.key)) {
      throw validationFailed([{ field: 'key', message: `is a template key: ${input.key}` }]);
    }
    const resolved = resolveDefinition(input.key, input);
    if (await datasetKeyTaken(ctx.db, ctx.workspaceId, input.key)) {
      throw fail('conflict', { message: `A dataset with the key ${input.key} exists in this workspace.` });
    }
    const dataset = await insertDataset(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('bids'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      template_key: input.template_key,
      columns: JSON.stringify(resolved.columns.map((c) => c.name)),
      filters: JSON.stringify(resolved.fixedFilters),
      column_descriptions: JSON.stringify(input.column_descriptions ?? {}),
      created_by: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    });
    ctx.audit({ targetType: 'bi_dataset', targetId: dataset.id, changedFields: inputFields(input) });
    return { body: { dataset }, createdId: dataset.id };
  },
});

export const previewBiDataset = defineOperation({
  name: 'preview_bi_dataset',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  heavy: true,
  summary: 'Preview a BI dataset before saving it',
  description:
    'Returns the first rows (newest first, up to limit, default 10) a dataset definition would expose: ' +
    'the template rows with its fixed filters and chosen columns. Saves nothing; use it before ' +
    'create_bi_dataset to check the columns and filters.',
  input: Strict({
    ...definitionFields,
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Rows, 1-100 (default 10).' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/bi/datasets/preview' },
  responseKey: 'preview',
  response: Type.Object({ preview: BiResultSchema }),
  handler: async (ctx, input) => {
    const dataset = resolveDefinition('preview', input);
    const preview = await previewRows(ctx.db, ctx.workspaceId, dataset, {
      dialect: ctx.dialect,
      now: ctx.now,
      limit: input.limit ?? 10,
    });
    return { body: { preview } };
  },
});

export const listBiDatasets = defineOperation({
  name: 'list_bi_datasets',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  summary: 'List custom BI datasets',
  description:
    'Lists the custom datasets of the workspace, newest first, with their columns and fixed filters; ' +
    'filter by template_key. The built-in templates are listed by list_bi_templates.',
  input: Strict({
    template_key: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/bi/datasets' },
  heavy: heavyFilters({ scans: ['template_key'] }),
  responseKey: 'datasets',
  handler: async (ctx, input) => {
    const page = await listDatasets(ctx.db, ctx.workspaceId, input, pageRequest('list_bi_datasets', input));
    return { body: listBody('datasets', page) };
  },
});
