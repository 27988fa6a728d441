// Row types of Custom BI's tables (merged into DB through the product_analytics_bi module).
// biome-ignore lint/suspicious/noEmptyInterface: filled as BI's tables are added
export interface BiTables {}
