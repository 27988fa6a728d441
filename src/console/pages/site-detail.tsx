// One Analytics Site: its key and a copyable <script> snippet, events sent in the last hour and 24 hours,
// key rotation with an overlap, pause or resume, archive, and the edit form. /sites/new creates one.
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { count, when } from '../format.ts';
import { href, Link, navigate } from '../router.tsx';
import { can, me } from '../session.ts';
import { Dialog } from '../ui/dialog.tsx';
import { Field, PageHeader } from '../ui/page.tsx';
import { ErrorView, Loaded, toApiError, useLoad } from '../ui/states.tsx';
import { SiteForm } from './site-form.tsx';

type Site = Schemas['AnalyticsSite'];

export function snippet(site: Site): string {
  const origin = location.origin;
  const init = {
    endpoint: origin,
    siteKey: site.site_key,
    workspaceId: me.value?.workspace.id,
    app: site.allowed_apps[0] ?? 'web',
  };
  return `<script src="${origin}/sdk/wos-analytics.js"></script>\n<script>wos.init(${JSON.stringify(init)});</script>`;
}

function KeyPanel({ site, onChange }: { site: Site; onChange: (site: Site) => void }) {
  const [copied, setCopied] = useState('');
  const [rotating, setRotating] = useState(false);
  const [overlap, setOverlap] = useState('24');
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const text = snippet(site);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Snippet copied to the clipboard.');
    } catch {
      setCopied('Copying was refused: select the snippet and copy it.');
    }
  };
  const rotate = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const body = { overlap_hours: Number(overlap), idempotency_key: pressKey() };
      const { analytics_site } = await ok(
        api.POST('/v1/insights/sites/{site_id}/rotate-key', { params: { path: { site_id: site.id } }, body }),
      );
      setRotating(false);
      onChange(analytics_site);
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <section class="panel" aria-labelledby="key-heading">
      <h2 id="key-heading">Site key</h2>
      <p>
        <code class="site-key">{site.site_key}</code>
      </p>
      {site.previous_key && (
        <p>
          The previous key <code>{site.previous_key.site_key}</code> works until{' '}
          {when(site.previous_key.expires_at)}.
        </p>
      )}
      <Field label="Script snippet">
        <textarea class="snippet" readOnly rows={5} value={text} />
      </Field>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy snippet
        </button>
        {can(['analytics:write']) && (
          <button type="button" class="secondary" onClick={() => setRotating(true)}>
            Rotate key
          </button>
        )}
      </div>
      <p role="status">{copied}</p>
      <Dialog title="Rotate the site key" open={rotating} onClose={() => setRotating(false)}>
        <form class="stack" onSubmit={rotate}>
          <p>
            A new key replaces this one. The old key keeps working for the overlap, so pages can be updated.
          </p>
          <Field label="Overlap in hours (0 to 168)">
            <input
              type="number"
              min={0}
              max={168}
              required
              value={overlap}
              onInput={(e) => setOverlap(e.currentTarget.value)}
            />
          </Field>
          {error && <ErrorView error={error} />}
          <div class="actions">
            <button type="submit">Rotate now</button>
            <button type="button" class="secondary" onClick={() => setRotating(false)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </section>
  );
}

function Usage({ site }: { site: Site }) {
  const usage = useLoad(
    () => ok(api.GET('/v1/insights/sites/{site_id}/usage', { params: { path: { site_id: site.id } } })),
    [site.id, site.updated_at],
  );
  return (
    <section class="panel" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Events sent</h2>
      <Loaded load={usage} what="event counts">
        {({ site_usage }) => (
          <dl class="totals">
            <div>
              <dt>Last hour</dt>
              <dd class="usage-hour">{count(site_usage.last_hour)}</dd>
            </div>
            <div>
              <dt>Last 24 hours</dt>
              <dd class="usage-day">{count(site_usage.last_24_hours)}</dd>
            </div>
          </dl>
        )}
      </Loaded>
      <button type="button" class="secondary" onClick={usage.reload}>
        Refresh counts
      </button>
    </section>
  );
}

function Existing({ id }: { id: string }) {
  const [site, setSite] = useState<Site | null>(null);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [archiving, setArchiving] = useState(false);
  const load = useLoad(async () => {
    const { analytics_site } = await ok(
      api.GET('/v1/insights/sites/{site_id}', { params: { path: { site_id: id } } }),
    );
    setSite(analytics_site);
    return analytics_site;
  }, [id]);
  const writable = can(['analytics:write']);
  const setStatus = async (status: 'active' | 'paused') => {
    setError(null);
    try {
      const body = { status };
      setSite(
        (await ok(api.PATCH('/v1/insights/sites/{site_id}', { params: { path: { site_id: id } }, body })))
          .analytics_site,
      );
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  const archive = async () => {
    try {
      await ok(api.DELETE('/v1/insights/sites/{site_id}', { params: { path: { site_id: id }, query: {} } }));
      navigate(href('/sites'));
    } catch (failure) {
      setArchiving(false);
      setError(toApiError(failure));
    }
  };
  return (
    <Loaded load={load} what="the site">
      {() =>
        site && (
          <>
            <PageHeader title={site.name} lead={`Status: ${site.status} · created ${when(site.created_at)}`}>
              {writable && (
                <>
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => setStatus(site.status === 'active' ? 'paused' : 'active')}
                  >
                    {site.status === 'active' ? 'Pause site' : 'Resume site'}
                  </button>
                  <button type="button" class="danger" onClick={() => setArchiving(true)}>
                    Archive site
                  </button>
                </>
              )}
            </PageHeader>
            {error && <ErrorView error={error} />}
            <div class="grid-2">
              <KeyPanel site={site} onChange={setSite} />
              <Usage site={site} />
            </div>
            {writable && (
              <section class="panel" aria-labelledby="edit-heading">
                <h2 id="edit-heading">Settings</h2>
                <SiteForm key={site.updated_at} site={site} onSaved={setSite} />
              </section>
            )}
            <Dialog title="Archive this site?" open={archiving} onClose={() => setArchiving(false)}>
              <p>Its keys are refused from now on and it leaves the list. Its history stays readable.</p>
              <div class="actions">
                <button type="button" class="danger" onClick={archive}>
                  Archive
                </button>
                <button type="button" class="secondary" onClick={() => setArchiving(false)}>
                  Cancel
                </button>
              </div>
            </Dialog>
          </>
        )
      }
    </Loaded>
  );
}

export function SiteDetail({ id }: { id?: string }) {
  return (
    <section>
      <p class="crumbs">
        <Link href={href('/sites')}>Analytics Sites</Link>
      </p>
      {id ? (
        <Existing id={id} />
      ) : (
        <>
          <PageHeader title="New site" />
          <SiteForm onSaved={(site) => navigate(href(`/sites/${site.id}`), { replace: true })} />
        </>
      )}
    </section>
  );
}
