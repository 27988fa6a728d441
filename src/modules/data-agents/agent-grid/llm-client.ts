// The operator's language model: any OpenAI-compatible POST .../chat/completions endpoint with tool calling
// (WOS_LLM_URL, WOS_LLM_MODEL, WOS_LLM_API_KEY). Called only off a write transaction (by the assistant's job,
// or before the service guide's transaction), each request with a timeout and up to 3 tries on transient
// failures. The URL is the operator's own configuration, like the embeddings endpoint, so it is not checked
// against the public-address rules of URLs callers save (webhooks); the key is sent as a Bearer token and
// never logged or put in an error.
import type { Config } from '../../../config.ts';

export class ModelError extends Error {
  constructor(
    message: string,
    /** A retry may succeed (timeout, 429, 5xx); a 4xx or a malformed answer will not. */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function modelConfigured(config: Config): boolean {
  return Boolean(config.llmUrl && config.llmModel);
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatAnswer {
  content: string | null;
  toolCalls: ChatToolCall[];
  tokensIn: number;
  tokensOut: number;
  model: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function chatOnce(
  config: Config,
  messages: ChatMessage[],
  tools: ChatTool[],
  signal?: AbortSignal,
): Promise<ChatAnswer> {
  let response: Response;
  const timeout = AbortSignal.timeout(config.llmTimeoutMs);
  try {
    response = await fetch(config.llmUrl!, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.llmApiKey ? { authorization: `Bearer ${config.llmApiKey}` } : {}),
      },
      body: JSON.stringify({
        model: config.llmModel,
        messages,
        ...(tools.length ? { tools, tool_choice: 'auto' } : {}),
      }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch {
    signal?.throwIfAborted();
    const timedOut = timeout.aborted;
    throw new ModelError(
      timedOut ? 'the model endpoint timed out' : 'the model endpoint is unreachable',
      true,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    const retryable = response.status === 429 || response.status >= 500;
    throw new ModelError(`the model endpoint answered HTTP ${response.status}`, retryable);
  }
  const body = (await response.json().catch(() => undefined)) as
    | {
        model?: string;
        choices?: { message?: { content?: string | null; tool_calls?: ChatToolCall[] } }[];
        usage?: { prompt_tokens?: number; completion_tokens?: number };
      }
    | undefined;
  const message = body?.choices?.[0]?.message;
  if (!message) throw new ModelError('the model endpoint answered without a message', false);
  const toolCalls = Array.isArray(message.tool_calls)
    ? message.tool_calls.filter((c) => typeof c?.function?.name === 'string')
    : [];
  return {
    content: typeof message.content === 'string' ? message.content : null,
    toolCalls: toolCalls.map((c, i) => ({
      id: typeof c.id === 'string' ? c.id : `call_${i}`,
      type: 'function',
      function: { name: c.function.name, arguments: String(c.function.arguments ?? '{}') },
    })),
    tokensIn: Math.max(0, Math.floor(Number(body?.usage?.prompt_tokens ?? 0)) || 0),
    tokensOut: Math.max(0, Math.floor(Number(body?.usage?.completion_tokens ?? 0)) || 0),
    model: typeof body?.model === 'string' && body.model ? body.model : config.llmModel!,
  };
}

/** One model turn: 3 tries on transient failures, stopping at once when `signal` aborts. */
export async function chat(
  config: Config,
  messages: ChatMessage[],
  tools: ChatTool[],
  signal?: AbortSignal,
): Promise<ChatAnswer> {
  if (!modelConfigured(config)) {
    throw new ModelError('no language model is configured (WOS_LLM_URL, WOS_LLM_MODEL)', false);
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await chatOnce(config, messages, tools, signal);
    } catch (error) {
      if (!(error instanceof ModelError) || !error.retryable || attempt >= 3) throw error;
      await sleep(200 * 4 ** (attempt - 1));
    }
  }
}
