import { Type } from '@sinclair/typebox';
import { defineOperation, type OperationDefinition } from '../../core/define-operation.ts';
import type { SummarySection } from '../../core/module.ts';
import { RecordId, Resource, Text, Timestamp } from '../../core/resource-schema.ts';
import { MapOf, Strict } from '../../core/schema.ts';

/** The workspace and one section of counts per readable module (each module computes its own). */
const WorkspaceSummarySchema = Resource('WorkspaceSummary', {
  id: RecordId('ws'),
  name: Text('Northwind Design'),
  summary: MapOf(MapOf(Type.Unknown()), {
    description: "By module key (crm, tasks ...): that module's counts.",
    examples: [{ crm: { contacts: 42, companies: 12 }, tasks: { open: 7, completed: 30 } }],
  }),
  generated_at: Timestamp(),
});

/** get_workspace_summary, built from the summary sections every module contributes. */
export function workspaceSummaryOperation(sections: SummarySection[]): OperationDefinition {
  return defineOperation({
    name: 'get_workspace_summary',
    module: 'workspace',
    scopes: [
      'crm:read',
      'support:read',
      'tasks:read',
      'activity:read',
      'cms:read',
      'assets:read',
      'integrations:read',
      'analytics:read',
      'bi:read',
    ],
    scopeMode: 'any',
    kind: 'read',
    summary: 'Summarize the workspace',
    description:
      'Start here: the workspace (id, name, enabled modules) and key counts (contacts, tasks by status ...) of each enabled module this credential may read. Needs any one of its scopes.',
    input: Strict({}),
    rest: { method: 'GET', path: '/v1/workspace' },
    responseKey: 'workspace',
    response: Type.Object({ workspace: WorkspaceSummarySchema }, { additionalProperties: false }),
    handler: async (ctx) => {
      const visible = sections.filter((s) => ctx.scopes.has(s.scope) && ctx.enabledModule(s.module));
      const computed = await Promise.all(visible.map((s) => s.compute(ctx.db, ctx.workspaceId, ctx.now)));
      const summary = Object.fromEntries(visible.map((s, i) => [s.key, computed[i]]));
      return {
        body: {
          workspace: { id: ctx.workspaceId, name: ctx.workspaceName, summary, generated_at: ctx.now },
        },
      };
    },
  });
}
