// The domain events of decisions, insights, recommendations, source objects and knowledge artifacts; data
// is the resource after the change (the schemas the API returns).
import type { DomainEventType } from '../../../core/module.ts';
import {
  DecisionSchema as decision,
  InsightSchema as insight,
  KnowledgeArtifactSchema as knowledgeArtifact,
  RecommendationSchema as recommendation,
  SourceObjectSchema as sourceObject,
} from './records-schemas.ts';

export const recordsEvents: DomainEventType[] = [
  {
    name: 'data_agent_decision.created',
    description: 'A decision was proposed; data is the decision.',
    schema: decision,
  },
  {
    name: 'data_agent_decision.updated',
    description: 'A proposed decision was edited; data is the decision.',
    schema: decision,
  },
  {
    name: 'data_agent_decision.status_changed',
    description: 'A decision was approved, rejected or superseded; data is the decision in its new status.',
    schema: decision,
  },
  {
    name: 'data_agent_insight.created',
    description: 'An insight was drafted; data is the insight.',
    schema: insight,
  },
  {
    name: 'data_agent.insight_published',
    description:
      'An insight was published (publish_data_agent_insight); data is the insight with its figures.',
    schema: insight,
  },
  {
    name: 'data_agent_insight.status_changed',
    description: 'An insight was published or archived; data is the insight.',
    schema: insight,
  },
  {
    name: 'data_agent_recommendation.created',
    description: 'A recommendation was proposed; data is the recommendation with its action.',
    schema: recommendation,
  },
  {
    name: 'data_agent_recommendation.updated',
    description: 'A proposed recommendation was edited; data is the recommendation.',
    schema: recommendation,
  },
  {
    name: 'data_agent_recommendation.status_changed',
    description:
      'A recommendation was approved, rejected, claimed for execution (executing), executed or failed; data is the recommendation, with the execution once it ran.',
    schema: recommendation,
  },
  {
    name: 'data_agent_source_object.created',
    description: 'A source object was registered; data is the source object.',
    schema: sourceObject,
  },
  {
    name: 'data_agent_knowledge_artifact.created',
    description: 'A knowledge artifact was written; data is the artifact, content included.',
    schema: knowledgeArtifact,
  },
  {
    name: 'data_agent_knowledge_artifact.updated',
    description: "A draft knowledge artifact's title, content or sources changed; data is the artifact.",
    schema: knowledgeArtifact,
  },
  {
    name: 'data_agent_knowledge_artifact.status_changed',
    description: 'A knowledge artifact was published or archived; data is the artifact.',
    schema: knowledgeArtifact,
  },
];
