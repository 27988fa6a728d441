// The tools of one tools/list answer. A field schema that an earlier tool of the same listing already shows
// whole (the BI query of reports, insight views and dataset versions; a create's nested shapes on its
// update) is listed once: later tools name where it is instead of repeating it.
import type { McpTool } from './mcp-tools.ts';

type Schema = Record<string, unknown>;

// Below this size (the schema without its description) a pointer saves too little to be worth a lookup.
const SHARED_MIN_BYTES = 300;
const POINTER = /(?:^| )Same schema as ([a-z0-9_]+)'s ([\w.[\]]+)\.$/;

/** The words a pointer ends its field's description with: "Same schema as create_bi_report's query." */
export function pointerText(tool: string, path: string): string {
  return `Same schema as ${tool}'s ${path}.`;
}

/** The tool and field path a pointer description names, if it is one. */
export function parsePointer(description: unknown): { tool: string; path: string } | undefined {
  const match = typeof description === 'string' ? POINTER.exec(description) : null;
  return match ? { tool: match[1]!, path: match[2]! } : undefined;
}

// A shape's first appearance in the listing: the tool and the path of the field.
type Seen = Map<string, { tool: string; path: string }>;

function shapeKey(schema: Schema): string {
  const { description: _description, ...shape } = schema;
  return JSON.stringify(shape);
}

/**
 * Walks a tool's fields (properties, array items), depth first in declaration order. A shape seen earlier
 * in the listing becomes a pointer to it; a large shape seen first is remembered, and its own fields are
 * walked too (so an inner shape another tool lists alone can point there). Returns the schema unchanged
 * when nothing in it was replaced.
 */
function compactFields(schema: Schema, tool: string, path: string, seen: Seen): Schema {
  let out = schema;
  const replace = (key: string, value: unknown) => {
    if (out === schema) out = { ...schema };
    out[key] = value;
  };
  if (schema.properties) {
    const properties = schema.properties as Record<string, Schema>;
    let changed: Record<string, Schema> | undefined;
    for (const [name, field] of Object.entries(properties)) {
      const next = compactField(field, tool, path ? `${path}.${name}` : name, seen);
      if (next !== field) {
        changed ??= { ...properties };
        changed[name] = next;
      }
    }
    if (changed) replace('properties', changed);
  }
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) {
    const items = schema.items as Schema;
    const next = compactField(items, tool, `${path}[]`, seen);
    if (next !== items) replace('items', next);
  }
  return out;
}

function compactField(field: Schema, tool: string, path: string, seen: Seen): Schema {
  const key = shapeKey(field);
  if (key.length < SHARED_MIN_BYTES) return compactFields(field, tool, path, seen);
  const owner = seen.get(key);
  if (owner) {
    const pointer = pointerText(owner.tool, owner.path);
    const description = field.description ? `${field.description} ${pointer}` : pointer;
    return field.type === undefined ? { description } : { type: field.type, description };
  }
  seen.set(key, { tool, path });
  return compactFields(field, tool, path, seen);
}

function fieldAt(schema: Schema, path: string): Schema | undefined {
  let at: Schema | undefined = schema;
  for (const step of path.split('.')) {
    const name = step.replace(/(\[\])+$/, '');
    at = (at?.properties as Record<string, Schema> | undefined)?.[name];
    for (let depth = (step.length - name.length) / 2; depth > 0; depth--) at = at?.items as Schema;
  }
  return at;
}

/**
 * The inverse of the listing's pointers: the schema with every pointer replaced by the field it names
 * (resolved in turn), keeping the pointing field's own description. For clients that want whole schemas,
 * and for the contract test.
 */
export function expandPointers(schema: Schema, tools: ReadonlyMap<string, McpTool>): Schema {
  const target = parsePointer(schema.description);
  if (target) {
    const owner = tools.get(target.tool);
    const field = owner && fieldAt(owner.inputSchema, target.path);
    if (!field) throw new Error(`${target.tool}'s ${target.path} is not in this listing`);
    const { description: _theirs, ...shape } = expandPointers(field, tools);
    const own = (schema.description as string).slice(0, -pointerText(target.tool, target.path).length);
    return own ? { ...shape, description: own.trimEnd() } : shape;
  }
  const out: Schema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Schema>).map(([name, field]) => [
        name,
        expandPointers(field, tools),
      ]),
    );
  }
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) {
    out.items = expandPointers(schema.items as Schema, tools);
  }
  return out;
}

/** The listing with every repeated large field schema replaced by a pointer to its first appearance. */
function compactListing(tools: McpTool[]): McpTool[] {
  const seen: Seen = new Map();
  return tools.map((tool) => {
    const inputSchema = compactFields(tool.inputSchema, tool.name, '', seen);
    return inputSchema === tool.inputSchema ? tool : { ...tool, inputSchema };
  });
}

// A listing depends only on which tools it holds; credentials mostly share a few sets of scopes.
const LISTINGS_KEPT = 32;
const listings = new Map<string, McpTool[]>();

export function listedTools(tools: McpTool[]): McpTool[] {
  const key = tools.map((tool) => tool.name).join(',');
  let listing = listings.get(key);
  if (!listing) {
    if (listings.size >= LISTINGS_KEPT) listings.delete(listings.keys().next().value!);
    listing = compactListing(tools);
    listings.set(key, listing);
  }
  return listing;
}
