// Checks of the schemas tools/list publishes, shared by the contract test (every tool, over raw JSON-RPC)
// and the official SDK client's listings (test/mcp-profiles.test.ts).

/** Every object schema, at any depth, must reject unknown properties (false or a typed schema, never open). */
export function openObjects(schema: any, path = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  if (schema.type === 'object') {
    const ap = schema.additionalProperties;
    if (ap === undefined || ap === true) found.push(path);
  }
  for (const [key, value] of Object.entries(schema)) {
    if (value && typeof value === 'object') found.push(...openObjects(value, `${path}.${key}`));
  }
  return found;
}

/** Nodes a portable tool schema must not have: a type list (null is an anyOf branch), a $ref, a bare boolean. */
export function unportable(schema: any, path = '$'): string[] {
  if (typeof schema === 'boolean') return [path];
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  if (Array.isArray(schema.type)) found.push(`${path}.type`);
  if ('$ref' in schema || '$defs' in schema) found.push(`${path}.$ref`);
  for (const [key, value] of Object.entries<any>(schema)) {
    if (key === 'enum' || key === 'const' || key === 'examples' || key === 'default' || key === 'required')
      continue;
    if (key === 'additionalProperties' && typeof value === 'boolean') continue;
    if (key === 'properties') {
      for (const [name, field] of Object.entries(value)) found.push(...unportable(field, `${path}.${name}`));
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) found.push(...unportable(v, `${path}.${key}[${i}]`));
    } else if (value && typeof value === 'object') found.push(...unportable(value, `${path}.${key}`));
  }
  return found;
}

/** Fields of an output schema that say nothing of their values' type (no type, anyOf, enum or const). */
export function untypedFields(schema: any, path = '$'): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: string[] = [];
  for (const [name, field] of Object.entries<any>(schema.properties ?? {})) {
    // {} is declared so: any JSON value (a condition's value, a free-form payload).
    const typed = ['type', 'anyOf', 'enum', 'const'].some((keyword) => keyword in field);
    if (!typed && Object.keys(field).length > 0) found.push(`${path}.${name}`);
    found.push(...untypedFields(field, `${path}.${name}`));
  }
  for (const branch of schema.anyOf ?? []) found.push(...untypedFields(branch, path));
  if (schema.items) found.push(...untypedFields(schema.items, `${path}[]`));
  return found;
}
