import type { ModuleParts } from '../../../core/module.ts';
import * as jobs from '../migrations/0019-data-agents-jobs.ts';
import * as records from '../migrations/0020-data-agents-records.ts';
import * as versions from '../migrations/0025-data-agents-versions.ts';
import * as planeWorkers from '../migrations/0029-data-agents-plane-workers.ts';
import { approveDecision } from './decision-approval.ts';
import { createDecision, decisionRecord, listDecisionsOperation, updateDecision } from './decisions.ts';
import type { GovernedTables } from './governed-tables.ts';
import {
  archiveInsight,
  createInsight,
  insightRecord,
  listInsightsOperation,
  publishInsight,
} from './insights.ts';
import { jobParts } from './job-parts.ts';
import {
  createKnowledgeArtifact,
  knowledgeArtifactRecord,
  listKnowledgeArtifactsOperation,
  updateKnowledgeArtifact,
} from './knowledge-artifacts.ts';
import { executeRecommendation } from './recommendation-execute.ts';
import {
  createRecommendation,
  listRecommendationsOperation,
  recommendationRecord,
  updateRecommendation,
} from './recommendations.ts';
import { recordsEvents } from './records-events.ts';
import { createSourceObject, listSourceObjectsOperation, sourceObjectRecord } from './source-objects.ts';
import { versionParts } from './version-parts.ts';

// Governed data (issue 13): execution planes, dataset versions and manifests, execution jobs, lineage,
// decisions, insights, recommendations, source objects, knowledge artifacts. docs/modules/data-agents.md.
export const governedParts: ModuleParts<GovernedTables> = {
  migrations: {
    '0019-data-agents-jobs': jobs,
    '0020-data-agents-records': records,
    '0025-data-agents-versions': versions,
    '0029-data-agents-plane-workers': planeWorkers,
  },
  operations: [
    ...jobParts.operations,
    // decisions, insights, recommendations, source objects, knowledge artifacts
    listDecisionsOperation,
    createDecision,
    updateDecision,
    approveDecision,
    listInsightsOperation,
    createInsight,
    publishInsight,
    archiveInsight,
    listRecommendationsOperation,
    createRecommendation,
    updateRecommendation,
    executeRecommendation,
    listSourceObjectsOperation,
    createSourceObject,
    listKnowledgeArtifactsOperation,
    createKnowledgeArtifact,
    updateKnowledgeArtifact,
    ...versionParts.operations,
  ],
  recordTypes: [
    ...jobParts.recordTypes,
    decisionRecord,
    insightRecord,
    recommendationRecord,
    sourceObjectRecord,
    knowledgeArtifactRecord,
    ...versionParts.recordTypes,
  ],
  events: [...recordsEvents, ...jobParts.events, ...versionParts.events],
  jobs: jobParts.jobs,
  periodicTasks: jobParts.periodicTasks,
};
