// The create and edit form of an Analytics Site: name, allowed origins, apps, validation mode and limits.
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { Field } from '../ui/page.tsx';
import { ErrorView, toApiError } from '../ui/states.tsx';

type Site = Schemas['AnalyticsSite'];
const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

export function SiteForm({ site, onSaved }: { site?: Site; onSaved: (site: Site) => void }) {
  const [name, setName] = useState(site?.name ?? '');
  const [origins, setOrigins] = useState(site?.allowed_origins.join('\n') ?? '');
  const [apps, setApps] = useState(site?.allowed_apps.join('\n') ?? '');
  const [mode, setMode] = useState<Site['validation_mode']>(site?.validation_mode ?? 'off');
  const [perMinute, setPerMinute] = useState(String(site?.events_per_minute ?? 6000));
  const [quota, setQuota] = useState(String(site?.daily_quota ?? 1_000_000));
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [busy, setBusy] = useState(false);
  const [key] = useState(pressKey);
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body = {
      name: name.trim(),
      allowed_origins: lines(origins),
      allowed_apps: lines(apps),
      validation_mode: mode,
      events_per_minute: Number(perMinute),
      daily_quota: Number(quota),
    };
    try {
      const saved = site
        ? await ok(
            api.PATCH('/v1/insights/sites/{site_id}', { params: { path: { site_id: site.id } }, body }),
          )
        : await ok(api.POST('/v1/insights/sites', { body: { ...body, idempotency_key: key } }));
      onSaved(saved.analytics_site);
    } catch (failure) {
      setError(toApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack form" onSubmit={save} aria-label={site ? 'Edit site' : 'New site'}>
      <Field label="Name">
        <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <Field
        label="Allowed origins"
        hint="One per line: https://shop.example.com, or https://*.example.com for subdomains."
      >
        <textarea required rows={3} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
      </Field>
      <Field label="Apps" hint="One per line; empty allows any app.">
        <textarea rows={2} value={apps} onInput={(e) => setApps(e.currentTarget.value)} />
      </Field>
      <Field
        label="Validation mode"
        hint="Tracking-plan check at ingest: warn stores problems, enforce rejects."
      >
        <select value={mode} onChange={(e) => setMode(e.currentTarget.value as Site['validation_mode'])}>
          <option value="off">Off</option>
          <option value="warn">Warn</option>
          <option value="enforce">Enforce</option>
        </select>
      </Field>
      <div class="row">
        <Field label="Events per minute">
          <input
            type="number"
            min={1}
            required
            value={perMinute}
            onInput={(e) => setPerMinute(e.currentTarget.value)}
          />
        </Field>
        <Field label="Daily quota">
          <input
            type="number"
            min={1}
            required
            value={quota}
            onInput={(e) => setQuota(e.currentTarget.value)}
          />
        </Field>
      </div>
      {error && <ErrorView error={error} />}
      <div class="actions">
        <button type="submit" disabled={busy}>
          {site ? 'Save changes' : 'Create site'}
        </button>
      </div>
    </form>
  );
}
