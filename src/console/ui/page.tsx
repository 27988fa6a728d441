// A page's heading and document title, and the small building blocks pages share.
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

export function PageHeader({
  title,
  children,
  lead,
}: {
  title: string;
  children?: ComponentChildren;
  lead?: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · wos console`;
  }, [title]);
  return (
    <header class="page-header">
      <div>
        <h1>{title}</h1>
        {lead && <p class="lead">{lead}</p>}
      </div>
      {children && <div class="actions">{children}</div>}
    </header>
  );
}

/** Previous and next page buttons over a cursor kept in the URL (`cursor`, and `back`: the cursors before). */
export function Pager({
  next,
  cursor,
  back,
  go,
}: {
  next?: string;
  cursor: string;
  back: string[];
  go: (cursor: string | undefined, back: string[]) => void;
}) {
  if (!next && !cursor) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button
        type="button"
        class="secondary"
        disabled={!cursor}
        onClick={() => go(back[back.length - 1] || undefined, back.slice(0, -1))}
      >
        Previous page
      </button>
      <button type="button" class="secondary" disabled={!next} onClick={() => go(next, [...back, cursor])}>
        Next page
      </button>
    </nav>
  );
}

export function Field({
  label,
  children,
  hint,
}: {
  label: string;
  children: ComponentChildren;
  hint?: string;
}) {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child passed in
    <label class="field">
      <span>{label}</span>
      {children}
      {hint && <small>{hint}</small>}
    </label>
  );
}
