// The pipeline entered on a caller's behalf: a worker (a run's job, a scheduled refresh, an assistant
// calling tools) calls a registry operation through runOperation like REST and MCP do. The credential is
// loaded when the call runs, so a credential revoked or a scope removed since the work was scheduled fails
// the call as the credential's own call would fail; audit events record actor system on behalf of it.

import type { CallOutcome, PipelineDeps } from './call.ts';
import { newId } from './ids.ts';
import { runOperation } from './run-operation.ts';

export interface OnBehalfCall {
  workspaceId: string;
  /** The credential whose scopes and workspace the call runs with (checked now). */
  credentialId: string;
  tool: string;
  input: Record<string, unknown>;
  /** The run that caused the call: recorded as caused_by on its call event and audit events. */
  runId?: string;
  /** Sent as the input's idempotency_key: a retried job then replays instead of writing twice. */
  idempotencyKey?: string;
  /** The system actor's name in audit events (default: worker). */
  actorName?: string;
  /** The call's request ID when the caller records it before the call runs (default: a new one). */
  requestId?: string;
}

export function runOnBehalf(deps: PipelineDeps, call: OnBehalfCall): Promise<CallOutcome> {
  const input = call.idempotencyKey ? { ...call.input, idempotency_key: call.idempotencyKey } : call.input;
  return runOperation(deps, {
    surface: 'worker',
    requestId: call.requestId ?? newId('req'),
    route: call.tool,
    method: 'worker',
    toolName: call.tool,
    operation: deps.registry.byName.get(call.tool),
    input,
    coerce: false,
    onBehalfOf: {
      workspaceId: call.workspaceId,
      credentialId: call.credentialId,
      actorName: call.actorName ?? 'worker',
      causedBy: call.runId,
    },
  });
}
