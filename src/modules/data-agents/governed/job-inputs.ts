// The input of each job type, declared as a schema of its own and checked when a job is created or its draft
// is edited (validation_failed on input.<path>). custom steps name read tools of the registry, checked
// against their own input schemas, so a job never stores a call that could not run.
import { type TObject, Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { type CompiledSchema, compileSchema, MapOf, Strict, toFieldErrors } from '../../../core/schema.ts';
import { resolveDataset } from '../../product-analytics/bi/bi-store.ts';
import { DatasetKey, QueryDefinitionSchema } from '../../product-analytics/bi/query-definition.ts';
import type { JobType } from './job-schemas.ts';
import { checkNodes, nodeRefInput } from './lineage-nodes.ts';
import { KNOWLEDGE_KINDS } from './records-schemas.ts';

export const MAX_CUSTOM_STEPS = 10;

export const JOB_INPUTS: Record<JobType, TObject> = {
  bi_query: Strict({ query: QueryDefinitionSchema }),
  dataset_snapshot: Strict({
    dataset_key: DatasetKey,
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  insight_generation: Strict({
    query: QueryDefinitionSchema,
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  }),
  knowledge_build: Strict({
    title: Type.String({ minLength: 1, maxLength: 500 }),
    kind: Enum(KNOWLEDGE_KINDS),
    content: Type.Optional(Type.String({ maxLength: 262_144, description: 'Markdown written as given.' })),
    from_job_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
        maxItems: 20,
        uniqueItems: true,
        description: 'Finished jobs whose output summaries and data become sections of the artifact.',
      }),
    ),
    source_refs: Type.Optional(Type.Array(nodeRefInput(), { maxItems: 50 })),
  }),
  custom: Strict({
    steps: Type.Optional(
      Type.Array(
        Strict({
          tool: Type.String({ minLength: 1, maxLength: 100, description: 'A read tool of this service.' }),
          arguments: Type.Optional(MapOf(Type.Unknown())),
        }),
        {
          maxItems: MAX_CUSTOM_STEPS,
          description:
            "Native plane: read tools run in order on the dispatcher's behalf; results kept in output.",
        },
      ),
    ),
    parameters: Type.Optional(
      MapOf(Type.Unknown(), { description: 'Free parameters for an external worker.' }),
    ),
  }),
};

const compiled = new Map<JobType, CompiledSchema>();
const prefixed = (errors: FieldError[], prefix: string) =>
  errors.map((e) => ({ ...e, field: e.field === '(body)' ? prefix : `${prefix}.${e.field}` }));

/** Checks a job's input against its type's schema and what it names (tools, jobs, nodes). */
export async function checkJobInput(
  ctx: OperationContext,
  jobType: JobType,
  input: Record<string, unknown>,
): Promise<void> {
  const schema = compiled.get(jobType) ?? compileSchema(JOB_INPUTS[jobType]);
  compiled.set(jobType, schema);
  if (!schema.strict(input)) throw validationFailed(prefixed(toFieldErrors(schema.strict.errors), 'input'));
  // The dataset a BI job names is a template or a dataset of this workspace (validation_failed otherwise).
  const query = input.query as { dataset_key?: string } | undefined;
  if (query?.dataset_key)
    await resolveDataset(ctx.db, ctx.workspaceId, query.dataset_key, 'input.query.dataset_key');
  if (typeof input.dataset_key === 'string')
    await resolveDataset(ctx.db, ctx.workspaceId, input.dataset_key, 'input.dataset_key');
  if (jobType === 'custom') checkSteps(ctx, (input.steps ?? []) as { tool: string; arguments?: object }[]);
  if (jobType === 'knowledge_build') {
    if (input.content === undefined && input.from_job_ids === undefined) {
      throw validationFailed([{ field: 'input.content', message: 'send content, from_job_ids or both' }]);
    }
    const refs = (input.source_refs ?? []) as { type: string; id: string }[];
    await checkNodes(
      ctx,
      refs.map((ref, i) => ({ field: `input.source_refs[${i}]`, ref })),
    );
    for (const id of (input.from_job_ids ?? []) as string[])
      await ctx.requireRecord('data_agent_execution_job', id);
  }
}

function checkSteps(ctx: OperationContext, steps: { tool: string; arguments?: object }[]) {
  steps.forEach((step, i) => {
    const field = `input.steps[${i}]`;
    const op = ctx.operationNamed(step.tool);
    if (!op?.mcp || op.kind !== 'read') {
      throw validationFailed([{ field: `${field}.tool`, message: 'is not a read tool of this service' }]);
    }
    const validate = op.validators().strict;
    if (!validate(structuredClone(step.arguments ?? {}))) {
      throw validationFailed(prefixed(toFieldErrors(validate.errors), `${field}.arguments`));
    }
  });
}
