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
  if (op.starts || op.accepted) return 202;
  return op.kind === 'create' ? 201 : 200;
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
