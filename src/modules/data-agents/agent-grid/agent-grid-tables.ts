// Row types of this part's tables (merged into DB through the data_agents module).
// biome-ignore lint/suspicious/noEmptyInterface: filled as the part's tables are added
export interface AgentGridTables {}
