// Which tools one /mcp request lists and may call: the tools of ?profile=, ?modules= and ?tools= together
// (each a comma list, or the parameter repeated), plus the profiles enable_toolset added to its session and
// the discovery tools. Without any of the three, every tool. Scopes and module enablement narrow further
// (mcp-tools.ts).
import { isModuleName, MODULES } from '../../core/catalogue.ts';
import { type FieldError, validationFailed } from '../../core/errors.ts';
import {
  DISCOVERY_TOOLS,
  isProfileName,
  PROFILE_NAMES,
  type ProfileName,
  profileHolds,
} from '../../core/tool-profiles.ts';
import type { Registry } from '../../registry.ts';

export interface Selection {
  profiles: ProfileName[];
  modules: string[];
  tools: string[];
}

/** The names of a query parameter: repeated parameters and comma-separated lists alike, blanks ignored. */
function namesOf(param: unknown): string[] {
  const names = [param]
    .flat()
    .filter((value): value is string => typeof value === 'string')
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
  return [...new Set(names)];
}

/** The selection of a request's query, undefined when it names none; unknown names fail, each named. */
export function selectionOf(query: Record<string, unknown>, registry: Registry): Selection | undefined {
  const profiles = namesOf(query.profile);
  const modules = namesOf(query.modules);
  const tools = namesOf(query.tools);
  if (!profiles.length && !modules.length && !tools.length) return undefined;
  const errors: FieldError[] = [
    ...profiles
      .filter((name) => !isProfileName(name))
      .map((name) => ({
        field: 'profile',
        message: `${JSON.stringify(name)} is not a profile; profiles: ${PROFILE_NAMES.join(', ')}`,
      })),
    ...modules
      .filter((name) => !isModuleName(name))
      .map((name) => ({
        field: 'modules',
        message: `${JSON.stringify(name)} is not a module; modules: ${MODULES.join(', ')}`,
      })),
    ...tools
      .filter((name) => !registry.byName.get(name)?.mcp)
      .map((name) => ({
        field: 'tools',
        message: `${JSON.stringify(name)} is not a tool; find_tools searches them by task`,
      })),
  ];
  if (errors.length) {
    const named = errors.map((e) => `${e.field} ${e.message.slice(0, e.message.indexOf(' is not'))}`);
    throw validationFailed(errors, `The query names unknown ${named.join(', ')}.`);
  }
  return { profiles: profiles as ProfileName[], modules, tools };
}

/**
 * The tool names a selection and a session's enabled profiles cover, undefined for every tool (no
 * selection: the session's profiles add nothing to a full listing).
 */
export function selectedTools(
  registry: Registry,
  selection: Selection | undefined,
  sessionProfiles: readonly string[] = [],
): ReadonlySet<string> | undefined {
  if (!selection) return undefined;
  const profiles = [...selection.profiles, ...sessionProfiles.filter(isProfileName)];
  const names = new Set<string>([...DISCOVERY_TOOLS, ...selection.tools]);
  for (const op of registry.operations) {
    if (!op.mcp) continue;
    if (selection.modules.includes(op.module) || profiles.some((profile) => profileHolds(profile, op)))
      names.add(op.name);
  }
  return names;
}
