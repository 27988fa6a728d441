// Native runners over the BI core: bi_query (run_bi_query called on the dispatcher's behalf: the query saved
// with its BI run, its rows summarized in the job output), dataset_snapshot (the next dataset
// version) and insight_generation (a draft insight whose figures and narrative come from the numbers:
// deterministic text, no model). Each reports what it read and produced; the job records them as lineage.
import type { QueryDefinition } from '../../product-analytics/bi/query-definition.ts';
import type { BiResult, CompiledBiQuery } from '../../product-analytics/bi/run-query.ts';
import { takeSnapshot } from './dataset-version-store.ts';
import { writeVersion } from './dataset-versions.ts';
import { type Figure, insertDraftInsight } from './insight-store.ts';
import { MAX_OUTPUT_DATA_BYTES } from './job-outputs.ts';
import type { NativeRunContext, NativeRunner } from './job-runners.ts';
import type { NodeRef } from './lineage-nodes.ts';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * Runs the job's query as run_bi_query, through the pipeline on the dispatcher's behalf: their scopes
 * (bi:write) and the BI module's being enabled apply exactly as if they had called it, and the BI core saves
 * the query with its BI run and audits it. The numbers are run_bi_query's by construction.
 */
async function runSavedQuery(ctx: NativeRunContext, definition: QueryDefinition) {
  const body = (await ctx.call('run_bi_query', {
    ...definition,
    name: ctx.job.title ?? `Execution job ${ctx.job.id}`,
  })) as unknown as {
    query: { id: string; definition: QueryDefinition & { limit: number }; last_run_id: string };
    result: BiResult;
    run: { id: string; related: { type: string; id: string }[] };
  };
  const { query, result, run } = body;
  ctx.log(`Ran the BI query ${query.id} over ${definition.dataset_key}: ${result.row_count} rows.`);
  const reads: NodeRef[] = [
    { type: 'bi_dataset', id: definition.dataset_key },
    ...run.related.filter((r) => r.type === 'bi_metric').map((r) => ({ type: 'metric', id: r.id })),
  ];
  const compiled = { definition: query.definition, columns: result.columns };
  return { compiled, result, queryId: query.id, runId: run.id, reads };
}

/** The rows that fit the output next to the rest (in query order); rows_included says how many. */
function fittedRows(result: BiResult, budget: number) {
  const rows: BiResult['rows'] = [];
  let used = 2;
  for (const row of result.rows) {
    used += bytes(row) + 1;
    if (used > budget) break;
    rows.push(row);
  }
  return rows;
}

export const biQueryRunner: NativeRunner = {
  run: async (ctx) => {
    const { compiled, result, queryId, runId, reads } = await runSavedQuery(ctx, ctx.input.query);
    const head = {
      query_id: queryId,
      bi_run_id: runId,
      definition: compiled.definition,
      columns: result.columns,
      row_count: result.row_count,
      truncated: result.truncated,
    };
    const rows = fittedRows(result, MAX_OUTPUT_DATA_BYTES - bytes(head) - 256);
    return {
      summary: `Ran the governed query over ${compiled.definition.dataset_key}: ${result.row_count} row${result.row_count === 1 ? '' : 's'}${result.truncated ? ' (more exist past the limit)' : ''}.`,
      produced: [{ type: 'bi_query', id: queryId }],
      reads,
      data: { ...head, rows, rows_included: rows.length },
    };
  },
};

export const datasetSnapshotRunner: NativeRunner = {
  run: async (ctx) => {
    const input = ctx.input as { dataset_key: string; description?: string };
    const snapshot = await takeSnapshot(
      ctx.reads,
      ctx.workspaceId,
      { dataset_key: input.dataset_key },
      { dialect: ctx.dialect, now: ctx.now(), credentialId: ctx.credentialId, field: 'input.dataset_key' },
    );
    const { version } = await writeVersion(
      { db: ctx.db, workspaceId: ctx.workspaceId, now: ctx.now(), audit: ctx.audit, emit: ctx.emit },
      snapshot,
      { description: input.description ?? null, jobId: ctx.job.id, createdBy: ctx.credentialId },
    );
    ctx.log(`Snapshotted ${input.dataset_key} as version ${version.version} (${version.row_count} rows).`);
    return {
      summary: `Snapshotted ${input.dataset_key} as version ${version.version} (proposed): ${version.row_count} rows, checksum ${version.checksum.slice(0, 12)}.`,
      produced: [{ type: 'dataset_version', id: version.id }],
      reads: [{ type: 'bi_dataset', id: input.dataset_key }],
      data: {
        dataset_version_id: version.id,
        version: version.version,
        row_count: version.row_count,
        checksum: version.checksum,
      },
    };
  },
};

const MAX_FIGURE_ROWS = 10;
const fmt = (n: number) => (Number.isInteger(n) ? n.toLocaleString('en-US') : n.toFixed(2));

interface MeasureOf {
  name: string;
  unitOf(row: BiResult['rows'][number]): string | null;
  /** count and sum add up across rows; avg, min, max and metrics do not. */
  summable: boolean;
}

/** What a draft needs of a compiled query: the definition as run and the result columns. */
type RanQuery = Pick<CompiledBiQuery, 'definition' | 'columns'>;

function measuresOf(compiled: RanQuery): MeasureOf[] {
  const defs = compiled.definition.measures ?? [];
  return compiled.columns
    .filter((c) => c.role === 'measure')
    .map((c, i) => {
      const aggregate = c.metric ? undefined : defs[i]?.aggregate;
      return {
        name: c.name,
        summable: aggregate === 'count' || aggregate === 'sum',
        unitOf: (row) =>
          c.type === 'money' || c.currency_column
            ? `${row[c.currency_column ?? 'currency'] ?? 'unknown currency'} cents`
            : aggregate === 'count' || aggregate === 'count_distinct'
              ? 'count'
              : null,
      };
    });
}

/**
 * Figures and narrative of a result, from its numbers only: per measure, the first rows (in query order)
 * as figures, a total per unit for counts and sums, and sentences naming the highest and lowest rows.
 */
export function draftFromResult(compiled: RanQuery, result: BiResult, source: { type: string; id: string }) {
  const dims = result.columns.filter((c) => c.role !== 'measure').map((c) => c.name);
  const key = compiled.definition.dataset_key;
  const labelOf = (row: BiResult['rows'][number]) =>
    dims.length ? dims.map((d) => `${row[d] ?? '(none)'}`).join(' / ') : key;
  const figures: Figure[] = [];
  const sentences = [
    `${result.row_count} row${result.row_count === 1 ? '' : 's'} of ${key}${dims.length ? ` by ${dims.join(', ')}` : ''}${result.truncated ? ' (the first rows of more)' : ''}.`,
  ];
  for (const m of measuresOf(compiled)) {
    const valued = result.rows.filter((r) => typeof r[m.name] === 'number');
    for (const row of valued.slice(0, MAX_FIGURE_ROWS)) {
      figures.push({
        label: `${m.name}: ${labelOf(row)}`,
        value: row[m.name] as number,
        unit: m.unitOf(row),
        source,
      });
    }
    if (!valued.length) {
      sentences.push(`${m.name} has no values.`);
      continue;
    }
    const withUnit = (row: BiResult['rows'][number]) => {
      const unit = m.unitOf(row);
      return `${fmt(row[m.name] as number)}${unit && unit !== 'count' ? ` ${unit}` : ''}`;
    };
    if (valued.length === 1) {
      sentences.push(`${m.name} is ${withUnit(valued[0]!)} for ${labelOf(valued[0]!)}.`);
    } else {
      const sorted = [...valued].sort((a, b) => (b[m.name] as number) - (a[m.name] as number));
      const top = sorted[0]!;
      const bottom = sorted[sorted.length - 1]!;
      sentences.push(
        `${m.name} is highest for ${labelOf(top)} (${withUnit(top)}) and lowest for ${labelOf(bottom)} (${withUnit(bottom)}).`,
      );
    }
    if (m.summable && valued.length > 1) {
      const totals = new Map<string | null, number>();
      for (const row of valued) {
        const unit = m.unitOf(row);
        totals.set(unit, (totals.get(unit) ?? 0) + (row[m.name] as number));
      }
      for (const [unit, total] of totals) {
        figures.push({ label: `${m.name}: total`, value: total, unit, source });
        sentences.push(`${m.name} totals ${fmt(total)}${unit && unit !== 'count' ? ` ${unit}` : ''}.`);
      }
    }
  }
  return { figures: figures.slice(0, 100), summary: sentences.join(' ') };
}

export const insightGenerationRunner: NativeRunner = {
  run: async (ctx) => {
    const input = ctx.input as { query: QueryDefinition; title?: string };
    const { compiled, result, queryId, reads } = await runSavedQuery(ctx, input.query);
    const { figures, summary } = draftFromResult(compiled, result, { type: 'bi_query', id: queryId });
    const insight = await insertDraftInsight(ctx.db, {
      workspaceId: ctx.workspaceId,
      title: input.title ?? `${input.query.dataset_key}: ${result.row_count} rows`,
      summary,
      figures,
      now: ctx.now(),
    });
    const target = { targetType: 'data_agent_insight', targetId: insight.id };
    ctx.audit({ ...target, action: 'create', changedFields: ['title', 'summary', 'figures'] });
    ctx.emit({ name: 'data_agent_insight.created', ...target, data: insight });
    return {
      summary: `Drafted the insight "${insight.title}" with ${figures.length} figure${figures.length === 1 ? '' : 's'}.`,
      produced: [
        { type: 'insight', id: insight.id },
        { type: 'bi_query', id: queryId },
      ],
      reads,
      data: { insight_id: insight.id, query_id: queryId, figures: figures.length, summary },
    };
  },
};
