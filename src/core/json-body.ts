// JSON request bodies as the content-type parser reads them: parsed, and held to the nesting limit before
// anything walks them. A body that fails is not answered here: it travels as a RefusedBody and fails at the
// validate stage (after authentication) as validation_failed, on REST, MCP and the operator API alike.
import type { FieldError } from './errors.ts';
import { MAX_NESTING, nestingFieldErrors } from './schema.ts';

/** A JSON body refused while parsing, with the field errors and message it fails with. */
export class RefusedBody {
  constructor(
    readonly fieldErrors: FieldError[],
    readonly message: string,
  ) {}
}

/** A body that is not JSON at all. */
export const MALFORMED_JSON = new RefusedBody(
  [{ field: '(body)', message: 'is not valid JSON' }],
  'The request body is not valid JSON.',
);

/**
 * How many levels an MCP message adds above a tool's arguments ({"params": {"arguments": ...}}): its body
 * may nest that much deeper, so a tool's input gets the same MAX_NESTING levels as a REST body.
 */
export const MCP_ENVELOPE_LEVELS = 2;

/** The route option (Fastify route config) that sets a route's body nesting limit; default MAX_NESTING. */
export interface BodyNestingConfig {
  bodyNesting?: number;
}

/** A body's JSON value; undefined for an empty body, a RefusedBody when malformed or nested too deep. */
export function readJsonBody(text: string, nesting = MAX_NESTING): unknown {
  if (text === '') return undefined;
  let value: unknown;
  try {
    // V8's JSON.parse does not recurse, so any nesting parses; the walk below is iterative too.
    value = JSON.parse(text);
  } catch {
    return MALFORMED_JSON;
  }
  const errors = nestingFieldErrors(value, nesting);
  return errors.length ? new RefusedBody(errors, 'The request body is nested too deeply.') : value;
}
