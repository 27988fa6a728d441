// The console's shell: sign-in gate, header (workspace, theme, Sign out), navigation of the pages this key
// can use, and the route switch.
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { api, ok } from './api.ts';
import { BiPage } from './pages/bi.tsx';
import { ObjectDetail } from './pages/object-detail.tsx';
import { ObjectsPage } from './pages/objects.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { SiteDetail } from './pages/site-detail.tsx';
import { SitesPage } from './pages/sites.tsx';
import { ViewBuilder } from './pages/view-builder.tsx';
import { ViewDetail } from './pages/view-detail.tsx';
import { ViewsPage } from './pages/views.tsx';
import { missingScope, PAGES, pageOf, usable } from './pages.ts';
import { href, Link, location$, match, navigate } from './router.tsx';
import { apiKey, me, modules, signOut } from './session.ts';
import { theme, toggleTheme } from './theme.ts';
import { ErrorView, Loading, toApiError, useLoad } from './ui/states.tsx';

type Params = Record<string, string>;
const ROUTES: [string, (p: Params) => JSX.Element][] = [
  ['/insights/objects/:app/:type/:id', (p) => <ObjectDetail app={p.app!} type={p.type!} id={p.id!} />],
  ['/insights/objects', () => <ObjectsPage />],
  ['/insights/views/:id/edit', (p) => <ViewBuilder id={p.id!} />],
  ['/insights/views/new', () => <ViewBuilder />],
  ['/insights/views/:id', (p) => <ViewDetail id={p.id!} />],
  ['/insights/views', () => <ViewsPage />],
  ['/sites/new', () => <SiteDetail />],
  ['/sites/:id', (p) => <SiteDetail id={p.id!} />],
  ['/sites', () => <SitesPage />],
];

function Route() {
  const path = location$.value.path;
  const page = pageOf(path);
  if (!page) {
    // /console, /console/bi, /console/insights: the first page of that area this key can use.
    const area = path.replace(/\/+$/, '');
    const first = PAGES.find((p) => usable(p) && `/console${p.path}`.startsWith(area));
    if (first && ['/console', '/console/bi', '/console/insights'].includes(area)) {
      queueMicrotask(() => navigate(href(first.path), { replace: true }));
      return null;
    }
    return <NoAccess title="Page not found" text="This console has no page at this address." />;
  }
  if (!usable(page)) {
    const scope = missingScope(page);
    const text = !modules.value.has('product_analytics_bi')
      ? 'The product_analytics_bi module is not enabled for this workspace.'
      : `This API key lacks the scope ${scope}, which ${page.title} needs.`;
    return <NoAccess title={`${page.title} is not available`} text={text} />;
  }
  for (const [pattern, view] of ROUTES) {
    const params = match(pattern);
    if (params) return view(params);
  }
  return <BiPage />;
}

function NoAccess({ title, text }: { title: string; text: string }) {
  useEffect(() => {
    document.title = `${title} · wos console`;
  }, [title]);
  return (
    <section>
      <h1>{title}</h1>
      <p role="alert">{text}</p>
    </section>
  );
}

function Nav() {
  const path = location$.value.path;
  const groups = [...new Set(PAGES.map((p) => p.group))];
  return (
    <nav aria-label="Console">
      {groups.map((group) => {
        const pages = PAGES.filter((p) => p.group === group && usable(p));
        if (!pages.length) return null;
        return (
          <div key={group} class="nav-group">
            <h2>{group}</h2>
            <ul>
              {pages.map((p) => (
                <li key={p.path}>
                  <Link href={href(p.path)} aria-current={pageOf(path) === p ? 'page' : undefined}>
                    {p.title}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}

function Shell() {
  const who = me.value!;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">wos console</span>
        <span class="workspace" title={who.workspace.id}>
          {who.workspace.name}
        </span>
        <span class="spacer" />
        <button type="button" class="secondary" aria-pressed={theme.value === 'dark'} onClick={toggleTheme}>
          Dark theme
        </button>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <Nav />
        <main id="main" tabIndex={-1}>
          <Route />
        </main>
      </div>
    </>
  );
}

export function App() {
  const key = apiKey.value;
  const loaded = useLoad(async () => {
    if (!key || me.value) return null;
    me.value = (await ok(api.GET('/v1/me'))).me;
    return null;
  }, [key]);
  if (!key) return <SignIn />;
  if (me.value) return <Shell />;
  if (loaded.state === 'error')
    return (
      <main id="main" class="center">
        <ErrorView error={toApiError(loaded.error)} onRetry={loaded.reload} />
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </main>
    );
  return (
    <main id="main" class="center">
      <Loading what="your workspace" />
    </main>
  );
}
