// Module names and scope strings of the specification.

export const MODULES = [
  'crm',
  'tasks',
  'activity_log',
  'support',
  'cms',
  'assets',
  'analytics_governance',
  'integrations',
  'product_analytics_bi',
  'data_agents',
  'workspace',
  'projects',
  'products',
  'calendar',
  'notifications',
] as const;
export type ModuleName = (typeof MODULES)[number];

const AREAS = [
  'crm',
  'tasks',
  'activity',
  'support',
  'cms',
  'assets',
  'analytics',
  'integrations',
  'bi',
  'projects',
  'products',
  'calendar',
  'notifications',
  'vector_store',
  'data_agents',
] as const;

export const SCOPES: readonly string[] = [
  ...AREAS.flatMap((area) => [`${area}:read`, `${area}:write`]),
  'audit:read',
  'data_agents:execute',
];
export type Scope = string;

export function isModuleName(value: string): value is ModuleName {
  return (MODULES as readonly string[]).includes(value);
}
