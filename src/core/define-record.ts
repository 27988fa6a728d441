// One declaration per record type (docs/architecture.md, "Records"): its table, ID prefix and fields, built
// from the column builders of record-fields.ts. Everything else about the record derives from it: the
// Kysely row type (RowOf), the response schema (so the OpenAPI component, the MCP outputSchema and the event
// schemas), the row-to-record mapper with its codecs, the insert's column list, the create and patch
// inputs, the editable fields of an update (record-update.ts) and the columns `query` searches. A
// declaration is a RecordType: a module lists it in recordTypes as it is.
import type { TObject, TOptional, TProperties, TSchema, TUnsafe } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { reusableInsert } from '../db/reusable-query.ts';
import type { DB } from '../db/tables.ts';
import { newId } from './ids.ts';
import type { Field } from './record-field.ts';
import { ref, timestamp } from './record-fields.ts';
import type { RecordType } from './record-types.ts';
import { Resource } from './resource-schema.ts';

export type Fields = Record<string, Field<any>>;
type Types<F> = F extends Field<infer T> ? T : never;
type OrNull<F, V> = Types<F>['nullable'] extends true ? V | null : V;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** id, created_at and updated_at: every record has them; a declaration may restate one to change its schema. */
type Standard = {
  id: ReturnType<typeof ref>;
  created_at: ReturnType<typeof timestamp>;
  updated_at: ReturnType<typeof timestamp>;
};
const STANDARD = ['id', 'created_at', 'updated_at'] as const;
export type AllFields<F> = Simplify<Omit<Standard, keyof F> & F>;

type KeysWhere<F, C> = { [K in keyof F]: Types<F[K]> extends C ? K : never }[keyof F] & string;
type StoredKeys<F> = KeysWhere<F, { stored: true }>;
type OutputKeys<F> = KeysWhere<F, { output: true }>;
type ComputedKeys<F> = KeysWhere<F, { stored: false }>;
type InputKeys<F> = KeysWhere<F, { input: true }>;
type EditableKeys<F> = KeysWhere<F, { editable: true }>;
/** A new row may leave it out: nullable, defaulted, or one of the standard fields. */
type OmissibleKeys<F> =
  | KeysWhere<F, { nullable: true }>
  | KeysWhere<F, { defaulted: true }>
  | (typeof STANDARD)[number];
/** A create's input may leave it out: omissible, or `optional` (the operation computes its default). */
type OptionalInputKeys<F> = OmissibleKeys<F> | KeysWhere<F, { optional: true }>;
type PatchNull<F> = Types<F>['patchNull'] extends boolean ? Types<F>['patchNull'] : Types<F>['nullable'];

/** The table's row (the Kysely table type): workspace_id and every stored column. */
export type Row<F> = Simplify<
  { workspace_id: string } & { [K in StoredKeys<F>]: OrNull<F[K], Types<F[K]>['db']> }
>;
/** The record as the API returns it. */
export type Value<F> = Simplify<{ [K in OutputKeys<F>]: OrNull<F[K], Types<F[K]>['api']> }>;
/** What a new row is made of (row()): values as given to the API (encoded into their columns). */
export type NewValues<F> = Simplify<
  { [K in Exclude<StoredKeys<F>, OmissibleKeys<F>>]: Types<F[K]>['value'] } & {
    [K in Extract<StoredKeys<F>, OmissibleKeys<F>>]?: OrNull<F[K], Types<F[K]>['value']>;
  }
>;
/** The values a patch may carry (updateRecord): a merged map, or the new value (null clears). */
export type PatchValues<F> = {
  [K in EditableKeys<F>]?: PatchNull<F[K]> extends true ? Types<F[K]>['value'] | null : Types<F[K]>['value'];
};
type CreateProps<F> = {
  [K in InputKeys<F>]: K extends OptionalInputKeys<F>
    ? TOptional<TUnsafe<Types<F[K]>['arg']>>
    : TUnsafe<Types<F[K]>['arg']>;
};
type PatchProps<F> = {
  [K in EditableKeys<F>]: TOptional<
    TUnsafe<PatchNull<F[K]> extends true ? Types<F[K]>['arg'] | null : Types<F[K]>['arg']>
  >;
};
type Compute<F> = { [K in ComputedKeys<F>]: (row: Row<F>) => Types<F[K]>['api'] };

type Passed = 'type' | 'module' | 'collection' | 'key' | 'readScope' | 'hiddenWhen' | 'load';

export type RecordSpec<F extends Fields, Table extends string> = Pick<RecordType, Passed> & {
  table: Table;
  /** IDs are `<prefix>_<ULID>`. */
  prefix: string;
  /** The OpenAPI component's name (Contact, DealStage). */
  title: string;
  fields: F;
} & ([ComputedKeys<AllFields<F>>] extends [never]
    ? { compute?: undefined }
    : { compute: Compute<AllFields<F>> });

/** Any declared record, for code that works on every one (updateRecord, the schema-drift test). */
export interface AnyRecord extends Omit<RecordType<TObject>, 'table' | 'toResource'> {
  table: string;
  prefix: string;
  fields: Fields;
  columns: readonly string[];
  searchColumns: readonly string[];
  editable: readonly string[];
  createInput: TProperties;
  patchInput: TProperties;
  toRecord(row: any): any;
  toResource(row: any, context?: { now: string }): any;
  row(scope: { workspaceId: string; now: string }, values: any): any;
  insert(db: Kysely<DB>, row: any): Promise<any>;
}

export interface DeclaredRecord<F extends Fields = Fields, Table extends string = string> extends AnyRecord {
  table: Table;
  prefix: string;
  /** Every field, id and timestamps included, in the record's order. */
  fields: F;
  schema: TObject<{ [K in OutputKeys<F>]: TUnsafe<Value<F>[K]> }>;
  /** The insert's columns, in the table's order. */
  columns: readonly (keyof Row<F> & string)[];
  /** The columns a list's `query` matches (the trigram index's, src/core/search-index.ts). */
  searchColumns: readonly string[];
  editable: readonly EditableKeys<F>[];
  /** A create operation's input properties: Strict({...record.createInput, extra}) or a pick of them. */
  createInput: CreateProps<F>;
  /** An update operation's input properties (each optional), without the record's ID. */
  patchInput: PatchProps<F>;
  toRecord(row: Row<F>): Value<F>;
  toResource(row: any, context?: { now: string }): Value<F>;
  /** A new row of this workspace: a fresh ID, timestamps now, defaults and nulls for what is left out. */
  row(scope: { workspaceId: string; now: string }, values: NewValues<F>): Row<F>;
  /** Inserts the row (one statement compiled once per database) and returns its record. */
  insert(db: Kysely<DB>, row: Row<F>): Promise<Value<F>>;
}

export type RowOf<R extends AnyRecord> = R extends DeclaredRecord<infer F> ? Row<F> : never;
export type RecordOf<R extends AnyRecord> = R extends DeclaredRecord<infer F> ? Value<F> : never;
export type PatchOf<R extends AnyRecord> = R extends DeclaredRecord<infer F> ? PatchValues<F> : never;

export function isDeclaredRecord<T extends object>(recordType: T): recordType is T & AnyRecord {
  return 'columns' in recordType && 'fields' in recordType;
}

/** Declares a record type from its fields (docs/architecture.md, "Records"). */
export function defineRecord<const F extends Fields, const Table extends string>(
  spec: RecordSpec<F, Table>,
): DeclaredRecord<AllFields<F>, Table> {
  const { fields: declared, prefix, title, compute, ...recordType } = spec;
  const fields: Fields = {
    id: declared.id ?? ref(spec.type, prefix),
    ...declared,
    created_at: declared.created_at ?? timestamp(),
    updated_at: declared.updated_at ?? timestamp(),
  };
  const entries = Object.entries(fields);
  const stored = entries.filter(([, f]) => f.spec.stored);
  const outputs = entries.filter(([, f]) => f.spec.output);
  const computeFns = (compute ?? {}) as Record<string, (row: Record<string, unknown>) => unknown>;
  for (const [name, f] of entries) {
    if (!f.spec.stored && !computeFns[name])
      throw new Error(`${spec.type}.${name}: computed without compute`);
  }

  const properties: Record<string, TSchema> = {};
  for (const [name, f] of outputs) {
    properties[name] = f.spec.responseSchema ?? f.spec.present(f.spec.nullable, f.spec.description);
  }
  const createInput: Record<string, TSchema> = {};
  for (const [name, f] of entries.filter(([, f]) => f.spec.input)) {
    const schema = f.spec.inputSchema ?? f.spec.accept(f.spec.inputDescription);
    const omissible = f.spec.nullable || f.spec.hasDefault || f.spec.optional;
    createInput[name] = omissible ? Type.Optional(schema) : schema;
  }
  const patchInput: Record<string, TSchema> = {};
  for (const [name, f] of entries.filter(([, f]) => f.spec.editable)) {
    const schema =
      f.spec.editSchema ??
      (f.spec.editDescription === undefined && f.spec.inputSchema
        ? f.spec.inputSchema
        : f.spec.accept(f.spec.editDescription));
    const orNull = f.spec.editable === 'replace' && (f.spec.patchNull ?? f.spec.nullable);
    patchInput[name] = Type.Optional(orNull ? Type.Union([schema, Type.Null()]) : schema);
  }

  // The mapper runs for every row a list returns: one pass over prepared steps.
  const steps = outputs.map(([name, f]): [string, (row: Record<string, unknown>) => unknown] => {
    const fn = computeFns[name];
    if (!f.spec.stored && fn) return [name, fn];
    const decode = f.spec.decode;
    if (!decode) return [name, (row) => row[name]];
    return [name, (row) => (row[name] === null ? null : decode(row[name]))];
  });
  const toRecord = (row: object) => {
    const record: Record<string, unknown> = {};
    for (const [name, step] of steps) record[name] = step(row as Record<string, unknown>);
    return record;
  };

  const columns = ['workspace_id', ...stored.map(([name]) => name)];
  const insertRow = reusableInsert<Record<string, unknown>>(spec.table as keyof DB & string, columns);
  const row = (scope: { workspaceId: string; now: string }, values: Record<string, unknown>) => {
    const made: Record<string, unknown> = { workspace_id: scope.workspaceId };
    for (const [name, f] of stored) {
      let value = values[name];
      if (value === undefined) {
        if (name === 'id') value = newId(prefix);
        else if (name === 'created_at' || name === 'updated_at') value = scope.now;
        else if (f.spec.hasDefault) value = f.spec.defaultValue;
        else if (f.spec.nullable) value = null;
        else throw new Error(`A new ${spec.type} needs ${name}`);
      }
      made[name] = value === null || !f.spec.encode ? value : f.spec.encode(value);
    }
    return made;
  };

  return {
    ...recordType,
    prefix,
    fields,
    schema: Resource(title, properties),
    columns,
    searchColumns: stored.filter(([, f]) => f.spec.search).map(([name]) => name),
    editable: entries.filter(([, f]) => f.spec.editable).map(([name]) => name),
    createInput,
    patchInput,
    toRecord,
    toResource: toRecord,
    row,
    insert: async (db: Kysely<DB>, values: object) => {
      await insertRow(db, [values as Record<string, unknown>]);
      return toRecord(values);
    },
  } as unknown as DeclaredRecord<AllFields<F>, Table>;
}
