import type { OperationDefinition } from '../../core/define-operation.ts';

// Object Analytics reads: the grouped view, the timeseries, one object's drill-down (being built).
export const objectAnalyticsOperations: OperationDefinition[] = [];
