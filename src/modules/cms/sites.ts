import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import { CmsSiteSchema } from './cms-schemas.ts';
import { insertSite, listSites, siteWithDomain, toSite } from './cms-store.ts';
import type { CmsSitesTable } from './cms-tables.ts';

export const siteRecord = defineRecordType({
  type: 'cms_site',
  module: 'cms',
  table: 'cms_sites',
  collection: '/v1/cms/sites',
  key: 'site',
  readScope: 'cms:read',
  schema: CmsSiteSchema,
  toResource: toSite,
});

export const createCmsSite = defineOperation({
  name: 'create_cms_site',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'create',
  creates: 'cms_site',
  summary: 'Create a CMS site',
  description:
    'Creates a CMS site, the top of the content tree (site > collections > entries). domain (a host name, stored lowercase) is optional and unique in the workspace. Emits cms_site.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    domain: Type.Optional(Type.String({ format: 'hostname', minLength: 1, maxLength: 253 })),
    default_locale: Type.Optional(
      Type.String({
        pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
        maxLength: 35,
        description: 'BCP 47 tag; default en.',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
  }),
  rest: { method: 'POST', path: '/v1/cms/sites' },
  responseKey: 'site',
  handler: async (ctx, input) => {
    const domain = input.domain?.toLowerCase() ?? null;
    if (domain) {
      const taken = await siteWithDomain(ctx.db, ctx.workspaceId, domain);
      if (taken)
        throw validationFailed([{ field: 'domain', message: `is already used by site ${taken.id}` }]);
    }
    const row: CmsSitesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('site'),
      name: input.name,
      domain,
      default_locale: input.default_locale ?? 'en',
      description: input.description ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertSite(ctx.db, row), 'domain', 'is already used by another site');
    const site = toSite(row);
    ctx.audit({ targetType: 'cms_site', targetId: site.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'cms_site.created', targetType: 'cms_site', targetId: site.id, data: site });
    return { body: { site }, createdId: site.id };
  },
});

export const listCmsSites = defineOperation({
  name: 'list_cms_sites',
  module: 'cms',
  scopes: ['cms:read'],
  kind: 'read',
  summary: 'List CMS sites',
  description: 'Lists CMS sites, newest first; query matches name, domain and description.',
  input: Strict({ query: Type.Optional(Type.String({ maxLength: 500 })), ...pageInput }),
  rest: { method: 'GET', path: '/v1/cms/sites' },
  responseKey: 'sites',
  handler: async (ctx, input) => {
    const page = await listSites(ctx.db, ctx.workspaceId, input, pageRequest('list_cms_sites', input));
    return { body: listBody('sites', page) };
  },
});
