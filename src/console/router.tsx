// The console's routes and URL state. Every filter, window, sort, cursor and tab is a query parameter, so a
// reload or a shared link opens the same view; navigate() pushes history, setParams() changes the query.
import { signal } from '@preact/signals';
import type { AnchorHTMLAttributes } from 'preact';

export const BASE = '/console';
export const location$ = signal({ path: location.pathname, search: location.search });

function sync() {
  location$.value = { path: location.pathname, search: location.search };
}
addEventListener('popstate', sync);

export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  sync();
  if (!options.replace) scrollTo(0, 0);
}

/** The current query parameters (read-only view). */
export function params(): URLSearchParams {
  return new URLSearchParams(location$.value.search);
}

export function param(name: string): string {
  return params().get(name) ?? '';
}

/** Changes some query parameters (empty or undefined removes one); a change of filters drops the cursor. */
export function setParams(
  changes: Record<string, string | undefined | null>,
  options: { replace?: boolean; keepCursor?: boolean } = {},
): void {
  const next = params();
  if (!options.keepCursor && !('cursor' in changes)) {
    next.delete('cursor');
    next.delete('back');
  }
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || value === null || value === '') next.delete(key);
    else next.set(key, value);
  }
  const query = next.toString();
  navigate(`${location$.value.path}${query ? `?${query}` : ''}`, options);
}

/** A path of the console with optional query parameters. */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams(
    Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1])),
  ).toString();
  return `${BASE}${path}${search ? `?${search}` : ''}`;
}

/** An in-app link: a plain click navigates without reloading; modified clicks open a new tab as usual. */
export function Link({ href: target, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    event.preventDefault();
    navigate(target);
  };
  return <a href={target} {...rest} onClick={onClick} />;
}

/** Matches a path pattern like /insights/views/:id against the current path; returns its parameters. */
export function match(pattern: string, path = location$.value.path): Record<string, string> | null {
  const want = `${BASE}${pattern}`.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return null;
  const found: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i]!.startsWith(':')) found[want[i]!.slice(1)] = decodeURIComponent(have[i]!);
    else if (want[i] !== have[i]) return null;
  }
  return found;
}
