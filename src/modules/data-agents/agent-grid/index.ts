import type { ModuleParts } from '../../../core/module.ts';
import type { AgentGridTables } from './agent-grid-tables.ts';

// Agent Grid (issue 14): agent definitions and workflows with their versions, runs and their children,
// sessions, memories, workflow discovery, assistants and the service guide. docs/modules/agent-grid.md.
export const agentGridParts: ModuleParts<AgentGridTables> = {
  operations: [],
};
