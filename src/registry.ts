import type { TObject } from '@sinclair/typebox';
import type { OperationDefinition } from './core/define-operation.ts';
import { getRecordOperation } from './core/get-record.ts';
import type { DomainEventType, EventConsumer, ModuleDefinition } from './core/module.ts';
import { recordLookupOperation } from './core/record-lookup.ts';
import type { RecordType } from './core/record-types.ts';
import { responseSchema } from './core/response-schema.ts';
import { searchableTables } from './core/search-tables.ts';
import { discoveryOperations } from './core/tool-discovery.ts';
import { moduleList } from './modules/module-list.ts';
import { workspaceModule } from './modules/workspace/index.ts';

/** An operation with a REST route (every one but the MCP-only tools). */
export type RestOperation = OperationDefinition & { rest: NonNullable<OperationDefinition['rest']> };

export interface RestRoute {
  method: string;
  path: string;
  /** The operation serving the route; deprecated operations sharing it are listed for the docs. */
  operation: RestOperation;
  shared: RestOperation[];
}

export interface Registry {
  operations: OperationDefinition[];
  byName: ReadonlyMap<string, OperationDefinition>;
  recordTypes: ReadonlyMap<string, RecordType>;
  routes: RestRoute[];
  modules: ModuleDefinition[];
  /** Every domain event type the modules declare: the integration event catalogue. */
  eventTypes: ReadonlyMap<string, DomainEventType>;
  eventConsumers: EventConsumer[];
  /** The declared success body of every operation, by name (response-schema.ts). */
  responses: ReadonlyMap<string, TObject>;
  /** Every table a list's `query` searches, with its columns (declared records and search-tables.ts). */
  searchTables: ReadonlyMap<string, readonly string[]>;
}

/** The path parameter the operations of a record type's item path use ({ticket_id}), if any declares one. */
function itemParam(recordType: RecordType, operations: OperationDefinition[]): string | undefined {
  const pattern = new RegExp(
    `^${recordType.collection.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\{(\\w+)\\}$`,
  );
  for (const op of operations) {
    const match = op.rest && pattern.exec(op.rest.path);
    if (match) return match[1];
  }
  return undefined;
}

/** Routes that differ only in their parameter names are one path: they must use the same names. */
function assertOneNamePerPath(routes: RestRoute[]): void {
  const names = new Map<string, string>();
  for (const route of routes) {
    const template = route.path.replace(/\{\w+\}/g, '{}');
    const seen = names.get(template);
    if (seen && seen !== route.path)
      throw new Error(`${seen} and ${route.path} name the same path's parameters differently`);
    names.set(template, route.path);
  }
}

/** Collects every module's operations, adds a lookup route per record type, and checks names and routes. */
export function buildRegistry(modules: readonly ModuleDefinition[] = moduleList): Registry {
  const all = [...modules, workspaceModule(modules.flatMap((m) => m.summary ?? []))];
  const recordTypes = new Map<string, RecordType>();
  for (const recordType of all.flatMap((m) => m.recordTypes ?? [])) {
    if (recordTypes.has(recordType.type)) throw new Error(`Duplicate record type ${recordType.type}`);
    recordTypes.set(recordType.type, recordType);
  }
  const declared = all.flatMap((m) => m.operations);
  const operations = [
    ...declared,
    ...[...recordTypes.values()].map((t) => recordLookupOperation(t, itemParam(t, declared))),
    ...(recordTypes.size ? [getRecordOperation([...recordTypes.values()])] : []),
  ];
  operations.push(...discoveryOperations(() => operations));

  const byName = new Map<string, OperationDefinition>();
  for (const op of operations) {
    if (byName.has(op.name)) throw new Error(`Duplicate operation name ${op.name}`);
    byName.set(op.name, op);
  }

  // A route belongs to one current operation; deprecated operations may share their replacement's route.
  const routes = new Map<string, RestRoute>();
  const routed = operations.filter((o): o is RestOperation => o.rest !== null);
  for (const op of routed.filter((o) => !o.deprecated)) {
    const key = `${op.rest.method} ${op.rest.path}`;
    if (routes.has(key))
      throw new Error(`Two operations claim ${key}: ${routes.get(key)!.operation.name}, ${op.name}`);
    routes.set(key, { method: op.rest.method, path: op.rest.path, operation: op, shared: [] });
  }
  for (const op of routed.filter((o) => o.deprecated)) {
    const replacement = byName.get(op.deprecated!.replacedBy);
    if (!replacement) throw new Error(`${op.name} is replaced by unknown ${op.deprecated!.replacedBy}`);
    const key = `${op.rest.method} ${op.rest.path}`;
    const route = routes.get(key);
    if (route) route.shared.push(op);
    else routes.set(key, { method: op.rest.method, path: op.rest.path, operation: op, shared: [] });
  }
  const eventTypes = new Map<string, DomainEventType>();
  for (const eventType of all.flatMap((m) => m.events ?? [])) {
    if (eventTypes.has(eventType.name)) throw new Error(`Duplicate domain event type ${eventType.name}`);
    eventTypes.set(eventType.name, eventType);
  }
  const eventConsumers = all.flatMap((m) => m.eventConsumers ?? []);
  assertOneNamePerPath([...routes.values()]);
  const keys = new Set<string>();
  for (const { key, type } of recordTypes.values()) {
    if (keys.has(key)) throw new Error(`Two record types use the response key ${key} (${type})`);
    keys.add(key);
  }
  const responses = new Map(operations.map((op) => [op.name, responseSchema(op, recordTypes.values())]));
  return {
    operations,
    byName,
    recordTypes,
    routes: [...routes.values()],
    modules: all,
    eventTypes,
    eventConsumers,
    responses,
    searchTables: searchableTables(recordTypes.values()),
  };
}
