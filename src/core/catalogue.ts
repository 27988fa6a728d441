// Module names and scope strings. Each listed module declares its own name and scopes
// (src/modules/module-list.ts); the platform's are declared here.
import { moduleList } from '../modules/module-list.ts';

type Listed = (typeof moduleList)[number];

/** The workspace module (summary, request lookups) and the audit trail belong to the platform. */
const PLATFORM = { name: 'workspace', scopes: ['audit:read'] } as const;

type Declared = Listed | typeof PLATFORM;

export type ModuleName = Declared['name'];
/** Every scope a credential can hold: a string-literal union, so a mistyped scope fails the type check. */
export type Scope = NonNullable<Declared['scopes']>[number];

const declared: readonly { name: string; scopes?: readonly string[] }[] = [...moduleList, PLATFORM];
export const MODULES: readonly ModuleName[] = declared.map((m) => m.name as ModuleName);
export const SCOPES: readonly Scope[] = [
  ...new Set(declared.flatMap((m) => (m.scopes ?? []) as readonly Scope[])),
];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export function isModuleName(value: string): value is ModuleName {
  return (MODULES as readonly string[]).includes(value);
}
