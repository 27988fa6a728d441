// Every response is declared once: an operation's body schema is its explicit `response`, or derived from
// its responseKey and the record type whose schema it returns. REST, MCP (outputSchema), OpenAPI and the
// response check of the pipeline all read the schema from here.
import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { OperationDefinition } from './define-operation.ts';
import { errorCatalogue, fail } from './errors.ts';
import type { DomainEventType } from './module.ts';
import type { RecordType } from './record-types.ts';
import { compileResponseSchema, fieldPath } from './schema.ts';

export const requestId = Type.String({
  description: 'ID of this call; also in the x-request-id header.',
  examples: ['req_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'],
});

/** The error envelope every failure carries, on REST (any 4xx/5xx) and in MCP error results. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Unsafe<string>({ type: 'string', enum: Object.keys(errorCatalogue) }),
        message: Type.String(),
        request_id: Type.String(),
        docs_url: Type.String({ format: 'uri' }),
        field_errors: Type.Optional(
          Type.Array(
            Type.Object({ field: Type.String(), message: Type.String() }, { additionalProperties: false }),
          ),
        ),
        required_scope: Type.Optional(Type.String()),
        retry_after_seconds: Type.Optional(Type.Integer()),
        idempotency_key: Type.Optional(Type.String()),
      },
      { additionalProperties: true },
    ),
  },
  { title: 'ErrorEnvelope', additionalProperties: false },
);

/** A body holding one record under its key: {contact, request_id}. */
export function oneRecordBody(key: string, resource: TSchema): TObject {
  return Type.Object({ [key]: resource }, { additionalProperties: false });
}

/** A page of records (listBody in pagination.ts): {contacts: [...], next_cursor?}. */
export function pageBody(key: string, resource: TSchema): TObject {
  return Type.Object(
    {
      [key]: Type.Array(resource),
      next_cursor: Type.Optional(
        Type.String({ description: 'Present only when another page exists: send it back as cursor.' }),
      ),
    },
    { additionalProperties: false },
  );
}

/** The plural a list uses as its key (contact -> contacts, entry -> entries). */
function plural(key: string): string {
  return key.endsWith('y') ? `${key.slice(0, -1)}ies` : `${key}s`;
}

/**
 * The body schema of an operation without request_id: its explicit `response`, else one record of the type
 * whose key is responseKey, else (for lists) a page of the type whose plural is responseKey.
 */
function bodySchema(op: OperationDefinition, recordTypes: Iterable<RecordType>): TObject {
  if (op.response) return op.response;
  const types = [...recordTypes];
  const single = types.find((t) => t.key === op.responseKey);
  if (single) return oneRecordBody(op.responseKey, single.schema);
  const listed = op.input.properties.cursor ? types.find((t) => plural(t.key) === op.responseKey) : undefined;
  if (listed) return pageBody(op.responseKey, listed.schema);
  // A REST-only raw answer (an iCalendar feed) has no JSON body to declare.
  if (op.responseMediaType) return Type.Object({}, { additionalProperties: false });
  throw new Error(
    `${op.name}: no record type has the key "${op.responseKey}"; declare the operation's response schema`,
  );
}

/** The full success body: the operation's body plus request_id (and dry_run for dry-run operations). */
export function responseSchema(op: OperationDefinition, recordTypes: Iterable<RecordType>): TObject {
  const body = bodySchema(op, recordTypes);
  const properties: TProperties = { ...body.properties, request_id: requestId };
  if (op.dryRun) {
    properties.dry_run = Type.Optional(
      Type.Literal(true, { description: 'Present on a preview: nothing was written.' }),
    );
  }
  return Type.Object(properties, {
    additionalProperties: false,
    ...(body.description ? { description: body.description } : {}),
  });
}

/**
 * HTTP status of a successful call: 201 for creates (an idempotent replay answers 200 with the same body),
 * else 200. The one place a new kind of success (202 for an operation that starts a run) is decided.
 */
export function successStatus(op: OperationDefinition): number {
  if (op.starts) return 202;
  return op.kind === 'create' ? 201 : 200;
}

const ANNOTATIONS = new Set(['examples', 'description', 'title']);

/**
 * A schema as compact as it validates: no annotations (examples, descriptions and titles are in OpenAPI
 * and in the tool's description), objects left open (the closed form is checked by the pipeline and
 * documented in OpenAPI), and `anyOf [{type: T}, {type: null}]` as `type: [T, "null"]`. tools/list
 * carries one per tool, so its size matters more than its prose.
 */
function compact(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compact);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      // Keys here are field names (a resource may have a field named title or description).
      out[key] = Object.fromEntries(
        Object.entries(value as object).map(([name, field]) => [name, compact(field)]),
      );
    } else if (!ANNOTATIONS.has(key) && !(key === 'additionalProperties' && value === false)) {
      out[key] = compact(value);
    }
  }
  const branches = out.anyOf as Record<string, unknown>[] | undefined;
  if (branches?.length === 2 && branches[1]?.type === 'null' && Object.keys(branches[1]).length === 1) {
    const first = branches[0]!;
    if (typeof first.type === 'string') {
      const { anyOf: _anyOf, ...rest } = out;
      return { ...rest, ...first, type: [first.type, 'null'] };
    }
  }
  return out;
}

/** What an error result's structuredContent holds: the envelope (its full schema is in OpenAPI). */
const errorResult = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'object', required: ['code', 'message', 'request_id'] } },
};

/**
 * The MCP outputSchema of an operation: its success body, or the error envelope that an error result
 * (isError) carries in structuredContent. The spec exempts error results from the schema, but the official
 * TypeScript SDK client (1.x) validates them too, so the union keeps both conforming.
 */
export function outputSchema(response: TObject): Record<string, unknown> {
  return { type: 'object', anyOf: [compact(JSON.parse(JSON.stringify(response))), errorResult] };
}

const validators = new WeakMap<TSchema, ValidateFunction>();

function validatorOf(schema: TSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = compileResponseSchema(schema);
    validators.set(schema, validate);
  }
  return validate;
}

function problems(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => {
      const extra = (e.params as { additionalProperty?: string }).additionalProperty;
      return `${fieldPath(e.instancePath, extra) || '(body)'} ${e.message ?? 'is invalid'}`;
    })
    .join('; ');
}

/**
 * Checks a success body against the operation's declared schema (WOS_VALIDATE_RESPONSES=on: the test suite
 * and development). A mismatch is a bug of the service: internal_error naming the operation and the path.
 */
export function checkResponse(
  op: Pick<OperationDefinition, 'name'>,
  schema: TObject,
  body: Record<string, unknown>,
): void {
  const validate = validatorOf(schema);
  if (validate(body)) return;
  throw fail('internal_error', {
    message: `The response of ${op.name} does not match its declared schema: ${problems(validate)}.`,
  });
}

/** The same check for a domain event's data against the schema its module declares (events[].schema). */
export function checkEventData(op: OperationDefinition, event: DomainEventType, data: unknown): void {
  if (!event.schema) return;
  const validate = validatorOf(event.schema);
  if (validate(data)) return;
  throw fail('internal_error', {
    message: `The ${event.name} event of ${op.name} does not match its declared schema: ${problems(validate)}.`,
  });
}
