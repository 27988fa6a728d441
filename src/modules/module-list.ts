// The product's modules, listed once: adding a module is its folder and one line here. Operations, record
// types, events, consumers, jobs and migrations come from each ModuleDefinition; the ModuleName and Scope
// unions (core/catalogue.ts) and the DB type (db/tables.ts) are derived from this list's type.
import { activityLogModule } from './activity-log/index.ts';
import { analyticsGovernanceModule } from './analytics-governance/index.ts';
import { assetsModule } from './assets/index.ts';
import { calendarModule } from './calendar/index.ts';
import { cmsModule } from './cms/index.ts';
import { crmModule } from './crm/index.ts';
import { dataAgentsModule } from './data-agents/index.ts';
import { integrationsModule } from './integrations/index.ts';
import { notificationsModule } from './notifications/index.ts';
import { productAnalyticsModule } from './product-analytics/index.ts';
import { productsModule } from './products/index.ts';
import { projectsModule } from './projects/index.ts';
import { supportModule } from './support/index.ts';
import { tasksModule } from './tasks/index.ts';

// `as const`: a tuple keeps each module's own identity and tables type (no common supertype is computed).
export const moduleList = [
  crmModule,
  tasksModule,
  activityLogModule,
  supportModule,
  cmsModule,
  assetsModule,
  integrationsModule,
  analyticsGovernanceModule,
  notificationsModule,
  projectsModule,
  productsModule,
  calendarModule,
  productAnalyticsModule,
  dataAgentsModule,
] as const;
