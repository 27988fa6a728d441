// Metric expressions: parsed with the peggy grammar (metric-grammar.ts) into an AST, checked against the
// dataset's governed columns, and compiled by the query builder (numbers inlined as validated literals,
// text values as parameters). Division is exact-or-null: x * 1.0 / nullif(y, 0).
import { type Expression, type RawBuilder, sql } from 'kysely';
import peggy from 'peggy';
import type { FieldError } from '../../../core/errors.ts';
import { aggregateAllowed } from './aggregates.ts';
import { typedValue } from './filters.ts';
import { METRIC_GRAMMAR } from './metric-grammar.ts';
import { AGGREGATES, type Aggregate } from './query-definition.ts';
import type { BiColumn } from './templates.ts';

type Literal = string | number | boolean;
type Leaf =
  | { kind: 'compare'; column: string; op: '=' | '!=' | '>' | '>=' | '<' | '<='; value: Literal }
  | { kind: 'null'; column: string; negated: boolean }
  | { kind: 'in'; column: string; negated: boolean; values: Literal[] };
export type Condition =
  | { kind: 'and'; left: Condition; right: Condition }
  | { kind: 'or'; left: Condition; right: Condition }
  | { kind: 'not'; operand: Condition }
  | Leaf;

export type MetricAst =
  | { kind: 'number'; value: number }
  | { kind: 'aggregate'; fn: string; column: string | null; where: Condition | null }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: MetricAst; right: MetricAst }
  | { kind: 'negate'; operand: MetricAst };

const parser = peggy.generate(METRIC_GRAMMAR);

/** The AST, or a field error on `field` saying where the text stops making sense. */
export function parseMetric(text: string, field: string): { ast: MetricAst } | { error: FieldError } {
  try {
    return { ast: parser.parse(text) as MetricAst };
  } catch (error) {
    const e = error as { message?: string; location?: { start: { column: number } } };
    const at = e.location ? ` at character ${e.location.start.column}` : '';
    return { error: { field, message: `is not a valid metric expression${at}: ${e.message ?? ''}` } };
  }
}

const collectCondition = (c: Condition, into: string[]): void => {
  if (c.kind === 'and' || c.kind === 'or') {
    collectCondition(c.left, into);
    collectCondition(c.right, into);
  } else if (c.kind === 'not') collectCondition(c.operand, into);
  else into.push((c as Leaf).column);
};

/** Checks every function, column and literal of the AST against the dataset; errors name `field`. */
export function checkMetric(
  ast: MetricAst,
  columns: ReadonlyMap<string, BiColumn>,
  field: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (message: string) => errors.push({ field, message });
  const checkCondition = (c: Condition): void => {
    if (c.kind === 'and' || c.kind === 'or') {
      checkCondition(c.left);
      checkCondition(c.right);
      return;
    }
    if (c.kind === 'not') {
      checkCondition(c.operand);
      return;
    }
    const leaf = c as Leaf;
    const column = columns.get(leaf.column);
    if (!column) {
      fail(`names an unknown column: ${leaf.column}`);
      return;
    }
    const values = leaf.kind === 'compare' ? [leaf.value] : leaf.kind === 'in' ? leaf.values : [];
    for (const value of values) {
      const checked = typedValue(column, value);
      if ('error' in checked)
        fail(`compares ${leaf.column} with ${JSON.stringify(value)}: it ${checked.error}`);
    }
  };
  const walk = (node: MetricAst): void => {
    switch (node.kind) {
      case 'number':
        return;
      case 'negate':
        walk(node.operand);
        return;
      case 'binary':
        walk(node.left);
        walk(node.right);
        return;
      case 'aggregate': {
        if (!(AGGREGATES as readonly string[]).includes(node.fn)) {
          fail(`uses an unknown function: ${node.fn} (use ${AGGREGATES.join(', ')})`);
          return;
        }
        if (node.column === null) {
          if (node.fn !== 'count') fail(`${node.fn}(*) is not allowed: only count(*)`);
        } else {
          const column = columns.get(node.column);
          if (!column) fail(`names an unknown column: ${node.column}`);
          else {
            const problem = aggregateAllowed(node.fn as Aggregate, column);
            if (problem) fail(problem);
          }
        }
        if (node.where) checkCondition(node.where);
        return;
      }
    }
  };
  walk(ast);
  return errors;
}

/** Columns an AST reads (aggregated ones and those of its filters). */
export function metricColumns(ast: MetricAst): { aggregated: string[]; filtered: string[] } {
  const aggregated: string[] = [];
  const filtered: string[] = [];
  const walk = (node: MetricAst): void => {
    if (node.kind === 'negate') walk(node.operand);
    else if (node.kind === 'binary') {
      walk(node.left);
      walk(node.right);
    } else if (node.kind === 'aggregate') {
      if (node.column) aggregated.push(node.column);
      if (node.where) collectCondition(node.where, filtered);
    }
  };
  walk(ast);
  return { aggregated, filtered };
}

const COMPARE = { '=': '=', '!=': '<>', '>': '>', '>=': '>=', '<': '<', '<=': '<=' } as const;

/** Compiles a checked AST; `ref` gives a column's expression in the query (t.<name>). */
export function compileMetric(
  ast: MetricAst,
  columns: ReadonlyMap<string, BiColumn>,
  ref: (column: string) => Expression<unknown>,
): RawBuilder<unknown> {
  const value = (column: string, literal: Literal) => {
    const checked = typedValue(columns.get(column)!, literal);
    return 'value' in checked ? checked.value : null;
  };
  const condition = (c: Condition): RawBuilder<unknown> => {
    switch (c.kind) {
      case 'and':
      case 'or':
        return sql`(${condition(c.left)} ${sql.raw(c.kind)} ${condition(c.right)})`;
      case 'not':
        return sql`not (${condition(c.operand)})`;
      case 'null':
        return sql`${ref(c.column)} is ${sql.raw(c.negated ? 'not null' : 'null')}`;
      case 'in':
        return sql`${ref(c.column)} ${sql.raw(c.negated ? 'not in' : 'in')} (${sql.join(
          c.values.map((v) => value(c.column, v)),
        )})`;
      case 'compare':
        return sql`${ref(c.column)} ${sql.raw(COMPARE[c.op])} ${value(c.column, c.value)}`;
    }
  };
  const node = (n: MetricAst): RawBuilder<unknown> => {
    switch (n.kind) {
      case 'number':
        return sql.lit(n.value) as unknown as RawBuilder<unknown>;
      case 'negate':
        return sql`(-${node(n.operand)})`;
      case 'binary':
        return n.op === '/'
          ? sql`(${node(n.left)} * 1.0 / nullif(${node(n.right)}, 0))`
          : sql`(${node(n.left)} ${sql.raw(n.op)} ${node(n.right)})`;
      case 'aggregate': {
        const target = n.column === null ? sql`1` : ref(n.column);
        const input = n.where ? sql`case when ${condition(n.where)} then ${target} end` : target;
        if (n.column === null && !n.where) return sql`count(*)`;
        return aggregateSql(n.fn as Aggregate, input);
      }
    }
  };
  return node(ast);
}

/**
 * The SQL of one aggregate over an expression (count_distinct is count(distinct ...)). A sum over no rows
 * (or only nulls) is 0, as a count is; avg, min and max of nothing stay null.
 */
export function aggregateSql(fn: Aggregate, input: Expression<unknown>): RawBuilder<unknown> {
  if (fn === 'count_distinct') return sql`count(distinct ${input})`;
  if (fn === 'sum') return sql`coalesce(sum(${input}), 0)`;
  return sql`${sql.raw(fn)}(${input})`;
}
