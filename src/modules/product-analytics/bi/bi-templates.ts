// GET /v1/bi/templates: the governed datasets an agent may query, with their columns.
import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../../core/define-operation.ts';
import { Strict } from '../../../core/schema.ts';
import { BiTemplateSchema } from './bi-schemas.ts';
import { TEMPLATES } from './templates.ts';

export const listBiTemplates = defineOperation({
  name: 'list_bi_templates',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'List the BI templates',
  description:
    'Lists the built-in BI datasets (templates) with every column: name, type (string, integer, money in ' +
    'cents with its currency column, timestamp, boolean), role and description, plus the default query. ' +
    'Call it before run_bi_query or create_bi_dataset to know which names are accepted.',
  input: Strict({}),
  rest: { method: 'GET', path: '/v1/bi/templates' },
  responseKey: 'templates',
  response: Type.Object({ templates: Type.Array(BiTemplateSchema) }),
  handler: async () => ({
    body: {
      templates: TEMPLATES.map(({ source: _source, rollup: _rollup, ...template }) => template),
    },
  }),
});
