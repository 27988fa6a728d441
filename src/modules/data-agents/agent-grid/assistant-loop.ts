// The workspace assistant's job: a bounded tool-calling loop with the operator's model. Each model turn is a
// cost event (tokens from the model's usage); each tool the model asks for is either refused (not offered:
// outside the caller's scopes, a write without allow_writes, unknown) or called through the pipeline on the
// caller's behalf, and recorded as a tool call of the Agent Grid run with its request_id. The loop ends with
// the model's answer, or after max_steps turns (the run fails saying so); a model failure or the job's
// time limit fails the Agent Grid run too, never leaving it running. All records go through the Agent Grid
// tools, so they are audited like any call.
import type { TObject } from '@sinclair/typebox';
import type { OperationDefinition } from '../../../core/define-operation.ts';
import { fail, ServiceError } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { defineRunJob, type RunWorkContext, runTimeoutMessage } from '../../../core/run-job.ts';
import { JobTimeoutError } from '../../../jobs/types.ts';
import { credentialRefusal, failAgentRun } from './assistant-end.ts';
import { type ChatMessage, type ChatTool, type ChatToolCall, chat, ModelError } from './llm-client.ts';
import { toolCatalogue } from './tool-catalogue.ts';

export const ASSISTANT_RUN_TYPE = 'workspace_assistant';
export const ASSISTANT_JOB = 'assistants.workspace-run';

interface Payload {
  agent_grid_run_id: string;
  instruction: string;
  allow_writes: boolean;
  tools: string[];
  scopes: string[];
  max_steps: number;
}

const SYSTEM =
  'You are the assistant of one workspace of a workspace operations service (CRM, tasks, support, content, ' +
  'analytics, agents). Use the tools offered to look facts up instead of guessing; each result is JSON. When ' +
  'you have what you need, answer briefly in plain text. If the tools cannot answer, say so plainly.';

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The tool's input schema as JSON Schema, without the fields the assistant manages itself. */
function parametersOf(input: TObject): Record<string, unknown> {
  const schema = JSON.parse(JSON.stringify(input)) as {
    properties: Record<string, unknown>;
    required?: string[];
  };
  delete schema.properties.idempotency_key;
  delete schema.properties.dry_run;
  return schema;
}

/** Why a tool the model asked for is not called (it was not offered), or undefined when it may be. */
function refusal(
  name: string,
  payload: Payload,
  catalogue: ReadonlyMap<string, OperationDefinition>,
): { code: string; message: string } | undefined {
  if (payload.tools.includes(name)) return undefined;
  const op = catalogue.get(name);
  if (!op) return { code: 'tool_not_found', message: `${name} is not a tool of this service.` };
  const missing = op.scopes.filter((s) => !payload.scopes.includes(s));
  if (missing.length && (op.scopeMode === 'all' || missing.length === op.scopes.length)) {
    return {
      code: 'missing_required_scope',
      message: `${name} needs ${missing.join(', ')}, which this credential does not hold; it was not called.`,
    };
  }
  if (op.kind !== 'read' && !payload.allow_writes) {
    return {
      code: 'writes_not_allowed',
      message: `${name} changes data and this run was started without allow_writes; it was not called.`,
    };
  }
  return { code: 'tool_not_offered', message: `${name} was not offered to this run; it was not called.` };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records a tool call of the run. A read's call event is written a few ms after its answer (usage
 * recorder), so a request_id not found yet is retried briefly, then recorded without it.
 */
async function recordToolCall(work: RunWorkContext, fields: Record<string, unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await work.call('create_agent_grid_tool_call', fields);
      return;
    } catch (error) {
      const lagging =
        error instanceof ServiceError &&
        error.code === 'validation_failed' &&
        fields.request_id !== undefined &&
        JSON.stringify(error.extras).includes('request_id');
      if (!lagging) throw error;
      if (attempt >= 10) {
        const { request_id: _r, ...rest } = fields;
        await work.call('create_agent_grid_tool_call', rest);
        return;
      }
      await sleep(25 * attempt);
    }
  }
}

/** Runs (or refuses) one tool call the model made; answers what the model is told and the request ID. */
async function runToolCall(
  work: RunWorkContext,
  payload: Payload,
  catalogue: ReadonlyMap<string, OperationDefinition>,
  call: ChatToolCall,
  key: string,
): Promise<{ content: string; requestId?: string; ok: boolean }> {
  const name = call.function.name;
  const runId = payload.agent_grid_run_id;
  const refused = refusal(name, payload, catalogue);
  const record = (fields: Record<string, unknown>) =>
    recordToolCall(work, { run_id: runId, tool: truncate(name, 200), ...fields });
  if (refused) {
    await record({ status: 'failed', error_code: refused.code, result_summary: refused.message });
    return { content: JSON.stringify({ error: refused }), ok: false };
  }
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(call.function.arguments || '{}');
    if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new Error('not an object');
  } catch {
    const error = { code: 'validation_failed', message: 'The tool arguments were not a JSON object.' };
    await record({ status: 'failed', error_code: error.code, result_summary: error.message });
    return { content: JSON.stringify({ error }), ok: false };
  }
  const op = catalogue.get(name)!;
  const requestId = newId('req');
  const started = Date.now();
  try {
    const body = await work.call(name, args, {
      requestId,
      // A write the model repeats in a retried job replays instead of writing twice.
      ...(op.kind === 'read' ? {} : { idempotencyKey: key }),
    });
    const text = JSON.stringify(body);
    await record({
      arguments: args,
      status: 'completed',
      duration_ms: Date.now() - started,
      result_summary: truncate(text, 1000),
      request_id: requestId,
    });
    return { content: truncate(text, 12_000), requestId, ok: true };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const refusedBody = { code: error.code, message: error.message, ...error.extras };
    await record({
      arguments: args,
      status: 'failed',
      error_code: error.code,
      duration_ms: Date.now() - started,
      result_summary: truncate(JSON.stringify(refusedBody), 1000),
      request_id: requestId,
    });
    return { content: JSON.stringify({ error: refusedBody }), requestId, ok: false };
  }
}

export const assistantJob = defineRunJob({
  name: ASSISTANT_JOB,
  // max_steps model turns of up to WOS_LLM_TIMEOUT_MS each (three tries), plus the tool calls.
  timeoutSeconds: 900,
  // A retry would ask the model again and repeat its reads: the run fails instead, saying why.
  retryLimit: 0,
  work: async (work) => {
    const payload = work.payload as unknown as Payload;
    const runId = payload.agent_grid_run_id;
    const catalogue = await toolCatalogue();
    const tools: ChatTool[] = payload.tools.flatMap((name) => {
      const op = catalogue.get(name);
      return op
        ? [
            {
              type: 'function' as const,
              function: { name, description: op.description, parameters: parametersOf(op.input) },
            },
          ]
        : [];
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: payload.instruction },
    ];
    const requestIds: string[] = [];
    let answer: string | null = null;
    let steps = 0;
    try {
      await work.call('update_agent_grid_run', { run_id: runId, status: 'running' });
      while (steps < payload.max_steps) {
        work.signal.throwIfAborted();
        steps++;
        const turn = await chat(work.config, messages, tools, work.signal);
        await work.call(
          'create_agent_grid_cost_event',
          {
            run_id: runId,
            kind: 'llm_tokens',
            model: turn.model,
            tokens_in: turn.tokensIn,
            tokens_out: turn.tokensOut,
            cost_micros: 0,
          },
          { idempotencyKey: `${runId}:turn:${steps}` },
        );
        if (turn.toolCalls.length === 0) {
          answer = turn.content ?? '';
          break;
        }
        messages.push({ role: 'assistant', content: turn.content, tool_calls: turn.toolCalls });
        for (const [i, call] of turn.toolCalls.entries()) {
          const result = await runToolCall(work, payload, catalogue, call, `${runId}:${steps}:${i}`);
          if (result.ok && result.requestId) requestIds.push(result.requestId);
          messages.push({ role: 'tool', tool_call_id: call.id, content: result.content });
        }
      }
      const output = { mode: 'model', answer, request_ids: requestIds, model_turns: steps };
      await work.call(
        'update_agent_grid_run',
        answer === null
          ? {
              run_id: runId,
              status: 'failed',
              output,
              error: {
                code: 'max_steps_exceeded',
                message: `The model asked for tools in each of its ${payload.max_steps} turns without answering.`,
              },
            }
          : { run_id: runId, status: 'completed', output },
      );
      return { resultRef: runId };
    } catch (error) {
      const output = { mode: 'model', answer: null, request_ids: requestIds, model_turns: steps };
      const failRun = (code: string, message: string, options = {}) =>
        failAgentRun(work, { agentRunId: runId, output, error: { code, message } }, options);
      if (work.signal.aborted) {
        // At the job's time limit the platform run fails with timeout, and so does the Agent Grid run (a
        // call allowed after the abort). A cancel has ended both already; a stopping node leaves the run to
        // its next attempt.
        const reason: unknown = work.signal.reason;
        if (reason instanceof JobTimeoutError) {
          await failRun('timeout', runTimeoutMessage(reason.timeoutSeconds), { recordsEnd: true });
        }
        throw error;
      }
      // A credential revoked mid-run refuses the next call: the run fails saying so (assistant-end.ts).
      const refused =
        error instanceof ServiceError ? credentialRefusal(error, work.run.credential_id) : undefined;
      const code = refused?.code ?? 'upstream_unavailable';
      const message =
        error instanceof ModelError
          ? `The language model failed: ${error.message}.`
          : (refused?.message ?? 'The assistant stopped on an internal error.');
      await failRun(code, message);
      if (error instanceof ModelError) throw fail('upstream_unavailable', { message });
      throw refused ?? error;
    }
  },
});
