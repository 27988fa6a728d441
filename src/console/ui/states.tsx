// Loading, empty and error states, and useLoad: every view shows one of them while it has no data, and an
// error always shows the API's message and request_id (and the missing scope of a 403).
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';

export type Load<T> =
  | { state: 'loading'; data?: T; error?: undefined }
  | { state: 'ok'; data: T; error?: undefined }
  | { state: 'error'; data?: T; error: ApiError };

export function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(String(error), 0, 'client_error', null);
}

/** Runs `load` now and whenever a dependency changes; `reload` runs it again. Stale answers are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Load<T> & { reload: () => void } {
  const [result, setResult] = useState<Load<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  // The caller names what the load depends on.
  useEffect(() => {
    const id = ++latest.current;
    setResult((previous) => ({ state: 'loading', data: previous.data }));
    load().then(
      (data) => id === latest.current && setResult({ state: 'ok', data }),
      (error) => id === latest.current && setResult({ state: 'error', error: toApiError(error) }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...result, reload };
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status" aria-live="polite">
      Loading {what}&hellip;
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return (
    <div class="state empty" role="status">
      {children}
    </div>
  );
}

export function ErrorView({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>
        <strong>
          {error.status === 403 && error.requiredScope ? 'Not allowed' : 'Something went wrong'}
        </strong>
        : {error.message}
      </p>
      {error.requiredScope && (
        <p>
          This API key lacks the scope <code class="scope">{error.requiredScope}</code>. Ask a workspace admin
          for a key that has it.
        </p>
      )}
      <p class="meta">
        Code <code>{error.code}</code>
        {error.requestId && (
          <>
            {' '}
            &middot; request_id <code class="request-id">{error.requestId}</code>
          </>
        )}
      </p>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Shows loading and error states around a view of `load`'s data. */
export function Loaded<T>({
  load,
  what,
  children,
}: {
  load: Load<T> & { reload: () => void };
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  if (load.state === 'error') return <ErrorView error={load.error} onRetry={load.reload} />;
  if (load.data === undefined) return <Loading what={what} />;
  return (
    <div aria-busy={load.state === 'loading'} class={load.state === 'loading' ? 'refreshing' : undefined}>
      {children(load.data)}
    </div>
  );
}
