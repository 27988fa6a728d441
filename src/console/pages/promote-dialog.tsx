// Promote to BI: saves the current Object Analytics slice as an insight view (a name and the question it
// answers, asked in a dialog) and opens it.
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { href, navigate } from '../router.tsx';
import { Dialog } from '../ui/dialog.tsx';
import { Field } from '../ui/page.tsx';
import { ErrorView, toApiError } from '../ui/states.tsx';

type Source = Schemas['InsightView']['source'];

export function PromoteButton({ source }: { source: Source }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [question, setQuestion] = useState('');
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [busy, setBusy] = useState(false);
  const [key] = useState(pressKey);
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { insight_view } = await ok(
        api.POST('/v1/insights/views', {
          body: { name: name.trim(), question: question.trim() || undefined, source, idempotency_key: key },
        }),
      );
      setOpen(false);
      navigate(href(`/insights/views/${insight_view.id}`));
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Promote to BI
      </button>
      <Dialog title="Promote to BI" open={open} onClose={() => setOpen(false)}>
        <form onSubmit={save} class="stack">
          <p>
            Save this slice (its filters and window) as an insight view that can be refreshed, scheduled and
            exported.
          </p>
          <Field label="Name">
            <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Question it answers">
            <textarea maxLength={1000} value={question} onInput={(e) => setQuestion(e.currentTarget.value)} />
          </Field>
          {error && <ErrorView error={error} />}
          <div class="actions">
            <button type="submit" disabled={busy || !name.trim()}>
              Save insight view
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
