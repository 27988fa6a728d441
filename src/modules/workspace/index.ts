import type { ModuleDefinition, SummarySection } from '../../core/module.ts';
import { getRequest } from './requests.ts';
import { workspaceSummaryOperation } from './summary.ts';

export function workspaceModule(sections: SummarySection[]): ModuleDefinition {
  return { name: 'workspace', operations: [workspaceSummaryOperation(sections), getRequest] };
}
