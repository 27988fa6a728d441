import { combineParts, type ModuleDefinition } from '../../core/module.ts';
import type { AgentGridTables } from './agent-grid/agent-grid-tables.ts';
import { agentGridParts } from './agent-grid/index.ts';
import type { GovernedTables } from './governed/governed-tables.ts';
import { governedParts } from './governed/index.ts';
import { vectorParts } from './vectors/index.ts';
import type { VectorTables } from './vectors/vector-tables.ts';

// Data Agents: governed data, Agent Grid and assistants, and vector collections. The three parts are kept
// in folders of their own and combined here into the one module the specification names.
const identity = {
  name: 'data_agents',
  scopes: [
    'data_agents:read',
    'data_agents:write',
    'data_agents:execute',
    'vector_store:read',
    'vector_store:write',
  ],
} as const;

export type DataAgentsTables = GovernedTables & AgentGridTables & VectorTables;

export const dataAgentsModule: ModuleDefinition<typeof identity, DataAgentsTables> = {
  ...identity,
  ...combineParts<DataAgentsTables>(governedParts, agentGridParts, vectorParts),
};
