// A field of a record declaration (define-record.ts): what its column builder (record-fields.ts) made of
// it and what the chained calls added, at run time (FieldSpec) and at the type level (FieldTypes), from
// which define-record.ts derives the row, record, input and patch types.
import type { Static, TSchema } from '@sinclair/typebox';

/** A column's type as the schema-drift test compares it: `number` is an integer or a real column. */
export type ColumnFamily = 'text' | 'integer' | 'number' | 'blob';

/** What a field's builders have said so far, at the type level (define-record.ts derives the types). */
export interface FieldTypes {
  /** The column's value, without null. */
  db: unknown;
  /** The record's value, without null. */
  api: unknown;
  /** What a create row or a patch hands the field (encoded into `db`). */
  value: unknown;
  /** What the create input schema accepts. */
  arg: unknown;
  nullable: boolean;
  stored: boolean;
  output: boolean;
  input: boolean;
  optional: boolean;
  editable: boolean;
  /** The patch input accepts null: set by editable({nullable}), else the field's nullability. */
  patchNull: boolean | undefined;
  defaulted: boolean;
}

export type With<T, U> = { [K in keyof T]: K extends keyof U ? U[K] : T[K] };

export interface InputOptions {
  optional?: boolean;
  description?: string;
  schema?: TSchema;
}

export interface FieldSpec {
  family: ColumnFamily;
  stored: boolean;
  nullable: boolean;
  output: boolean;
  search: boolean;
  input: boolean;
  optional: boolean;
  inputDescription?: string;
  inputSchema?: TSchema;
  editable: false | 'replace' | 'merge';
  editDescription?: string;
  editSchema?: TSchema;
  patchNull?: boolean;
  description?: string;
  responseSchema?: TSchema;
  hasDefault: boolean;
  defaultValue?: unknown;
  /** The record type a reference points to. */
  ref?: string;
  /** The response schema of the value. */
  present(nullable: boolean, description: string | undefined): TSchema;
  /** The input schema of the value. */
  accept(description: string | undefined): TSchema;
  decode?(stored: unknown): unknown;
  encode?(value: unknown): unknown;
}

export class Field<T extends FieldTypes = FieldTypes> {
  declare readonly $types: T;
  constructor(readonly spec: Readonly<FieldSpec>) {}

  private with<U extends FieldTypes>(changes: Partial<FieldSpec>): Field<U> {
    return new Field<U>({ ...this.spec, ...changes });
  }

  /** The column may be null (a create may leave it out); the record shows null. */
  nullable(): Field<With<T, { nullable: true }>> {
    return this.with({ nullable: true });
  }

  /** The response schema's description. */
  describe(description: string): Field<T> {
    return this.with({ description });
  }

  /**
   * Creates take it: required unless nullable, defaulted or `optional` (a default the operation computes).
   * `description` is the create input's; `schema` replaces the derived input schema.
   */
  input<const O extends InputOptions = {}>(
    options: O = {} as O,
  ): Field<
    With<
      T,
      {
        input: true;
        optional: O extends { optional: true } ? true : T['optional'];
        arg: O extends { schema: infer S extends TSchema } ? Static<S> : T['arg'];
      }
    >
  > {
    return this.with({
      input: true,
      optional: this.spec.optional || options.optional === true,
      inputDescription: options.description,
      inputSchema: options.schema,
    });
  }

  /**
   * Updates change it (updateRecord): `replace` writes the value sent; `merge` merges a map into the
   * stored one key by key (null removes a key). The patch input accepts null when the field is nullable,
   * unless `nullable: false`; `description` is the patch input's.
   */
  editable<const N extends boolean | undefined = undefined>(
    mode: 'replace' | 'merge' = 'replace',
    options: { description?: string; nullable?: N; schema?: TSchema } = {},
  ): Field<With<T, { editable: true; patchNull: N }>> {
    return this.with({
      editable: mode,
      editDescription: options.description,
      editSchema: options.schema,
      patchNull: options.nullable,
    });
  }

  /** A list's free-text `query` matches this column (the trigram index covers it). */
  search(): Field<T> {
    return this.with({ search: true });
  }

  /** Stored but not part of the record (a derived key, the parts of a computed field). */
  hidden(): Field<With<T, { output: false }>> {
    return this.with({ output: false });
  }

  /** The value a new row gets when the create leaves it out. */
  default(value: T['value']): Field<With<T, { defaulted: true }>> {
    return this.with({ hasDefault: true, defaultValue: value });
  }

  /** Replaces the response schema (the whole of it, null included). */
  response<S extends TSchema>(schema: S): Field<With<T, { api: Static<S> }>> {
    return this.with({ responseSchema: schema });
  }
}
