import type { OperationDefinition } from '../../core/define-operation.ts';
import type { RecordType } from '../../core/record-types.ts';

// Analytics Sites: list, get, create, update, archive, rotate-key (being built).
export const siteOperations: OperationDefinition[] = [];
export const siteRecordTypes: RecordType[] = [];
