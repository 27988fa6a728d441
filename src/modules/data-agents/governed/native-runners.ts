// Runners of the native plane that need no BI query layer: custom (read tools run in order on the
// dispatcher's behalf) and knowledge_build (a knowledge artifact written from given Markdown and the outputs
// of finished jobs).
import { fail } from '../../../core/errors.ts';
import type { JobOutput } from './job-outputs.ts';
import { MAX_OUTPUT_DATA_BYTES } from './job-outputs.ts';
import type { NativeRunContext, NativeRunner } from './job-runners.ts';
import { findJob } from './job-store.ts';
import { insertKnowledgeArtifact } from './knowledge-artifact-store.ts';
import { type NodeRef, recordTypeOf } from './lineage-nodes.ts';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');

export const customRunner: NativeRunner = {
  check: (input) =>
    input.steps?.length
      ? undefined
      : {
          field: 'input.steps',
          message:
            'the native plane runs a custom job as steps of read tools: add steps, or use an external plane',
        },
  run: async (ctx) => {
    const steps = ctx.input.steps as { tool: string; arguments?: Record<string, unknown> }[];
    // Each step's result is kept whole when the results fit the output's 64 KiB together, else its size only.
    const share = Math.floor((MAX_OUTPUT_DATA_BYTES - 1024) / steps.length);
    const results = [];
    for (const [i, step] of steps.entries()) {
      ctx.signal.throwIfAborted();
      ctx.log(`Step ${i + 1}: ${step.tool}`);
      const body = await ctx.call(step.tool, step.arguments ?? {});
      const { request_id: _r, ...result } = body;
      const size = bytes(result);
      results.push(
        size <= share ? { tool: step.tool, result } : { tool: step.tool, truncated: true, bytes: size },
      );
    }
    return {
      summary: `Ran ${steps.length} read step${steps.length === 1 ? '' : 's'}: ${steps.map((s) => s.tool).join(', ')}.`,
      data: { steps: results },
    };
  },
};

/** A finished job's output as a Markdown section. */
function jobSection(title: string, output: JobOutput): string {
  const data = JSON.stringify(output.data ?? null, null, 2);
  const shown = data.length > 8000 ? `${data.slice(0, 8000)}\n... (${data.length} characters in all)` : data;
  return `## ${title}\n\n${output.summary}\n\n\`\`\`json\n${shown}\n\`\`\`\n`;
}

export const knowledgeBuildRunner: NativeRunner = {
  run: async (ctx: NativeRunContext) => {
    const input = ctx.input as {
      title: string;
      kind: 'document' | 'glossary' | 'faq' | 'playbook' | 'summary';
      content?: string;
      from_job_ids?: string[];
      source_refs?: NodeRef[];
    };
    const sections = input.content ? [input.content.trimEnd(), ''] : [];
    const reads: NodeRef[] = [...(input.source_refs ?? [])];
    for (const id of input.from_job_ids ?? []) {
      const source = await findJob(ctx.db, ctx.workspaceId, id);
      if (!source?.output) {
        throw fail('validation_failed', {
          message: `The job ${id} has no output to build from (it is ${source?.status ?? 'gone'}).`,
          field_errors: [{ field: 'input.from_job_ids', message: `${id} has no output yet` }],
        });
      }
      sections.push(
        jobSection(source.title ?? `${source.job_type} job ${source.id}`, JSON.parse(source.output)),
      );
      reads.push({ type: 'execution_job', id });
    }
    const sourceRefs = reads.flatMap((ref) => {
      const type = recordTypeOf(ref.type);
      return type ? [{ type, id: ref.id }] : [];
    });
    const artifact = await insertKnowledgeArtifact(ctx.db, {
      workspaceId: ctx.workspaceId,
      title: input.title,
      kind: input.kind,
      content: `# ${input.title}\n\n${sections.join('\n')}`,
      sourceRefs,
      now: ctx.now(),
    });
    const target = { targetType: 'data_agent_knowledge_artifact', targetId: artifact.id };
    ctx.audit({ ...target, action: 'create', changedFields: ['title', 'kind', 'content', 'source_refs'] });
    ctx.emit({ name: 'data_agent_knowledge_artifact.created', ...target, data: artifact });
    ctx.log(`Wrote knowledge artifact ${artifact.id} (${sections.length} sections).`);
    return {
      summary: `Wrote the ${input.kind} "${input.title}" from ${reads.length} source${reads.length === 1 ? '' : 's'}.`,
      produced: [{ type: 'knowledge_artifact', id: artifact.id }],
      reads,
      data: { knowledge_artifact_id: artifact.id, bytes: Buffer.byteLength(artifact.content, 'utf8') },
    };
  },
};
