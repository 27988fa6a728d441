export type PropertyType = 'string' | 'number' | 'integer' | 'boolean' | 'datetime' | 'object' | 'array';

export interface AnalyticsPropertiesTable {
  workspace_id: string;
  id: string;
  name: string;
  type: PropertyType;
  description: string | null;
  /** JSON array of allowed values, or null. */
  enum_values: string | null;
  pattern: string | null;
  created_at: string;
  updated_at: string;
}

export interface AnalyticsEventsTable {
  workspace_id: string;
  id: string;
  app: string;
  name: string;
  description: string | null;
  /** JSON array of {name, required}. */
  properties: string;
  status: 'active' | 'deprecated';
  created_at: string;
  updated_at: string;
}

export interface AnalyticsTrackingPlansTable {
  workspace_id: string;
  id: string;
  name: string;
  app: string;
  description: string | null;
  /** JSON array of event names of the plan's app. */
  events: string;
  status: 'draft' | 'active' | 'archived';
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface GovernanceTables {
  analytics_properties: AnalyticsPropertiesTable;
  analytics_events: AnalyticsEventsTable;
  analytics_tracking_plans: AnalyticsTrackingPlansTable;
}
