// Sign-in: a workspace API key, pasted and sent with Enter. It is checked with GET /v1/me before the
// console opens, and kept in sessionStorage only.
import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../api.ts';
import { me, remember } from '../session.ts';
import { ErrorView, toApiError } from '../ui/states.tsx';

export function SignIn() {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  useEffect(() => {
    document.title = 'Sign in · wos console';
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const candidate = key.trim();
    try {
      // Checked before it is kept: a key that does not work is never stored.
      const headers = { authorization: `Bearer ${candidate}` };
      me.value = (await ok(api.GET('/v1/me', { headers }))).me;
      remember(candidate);
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="center sign-in">
      <h1>wos console</h1>
      <p>
        Sign in with a workspace API key. It stays in this browser tab only and is forgotten when you sign
        out.
      </p>
      <form onSubmit={submit}>
        <label>
          API key
          <input
            type="password"
            name="api_key"
            autoComplete="off"
            spellcheck={false}
            required
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error && <ErrorView error={error} />}
    </main>
  );
}
