import { defineOperation, type OperationDefinition } from '../../core/define-operation.ts';
import type { SummarySection } from '../../core/module.ts';
import { Strict } from '../../core/schema.ts';

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
      'Start here to orient yourself: returns the workspace (id, name, enabled modules) and, for every ' +
      'enabled module this credential may read, its key counts (contacts, companies, tasks by status, ' +
      'activities ...). Sections the credential cannot read are left out. Needs any one of its scopes.',
    input: Strict({}),
    rest: { method: 'GET', path: '/v1/workspace' },
    responseKey: 'workspace',
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
