// The time window of Object Analytics: a relative preset (1h to 90d, the API's windows) or custom dates. A
// relative window can be frozen into the absolute dates it covers now, so a shared link keeps showing them.
import { useState } from 'preact/hooks';
import { param, setParams } from '../router.tsx';

export const WINDOWS = ['1h', '24h', '7d', '30d', '90d'] as const;
const LABELS: Record<string, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};

/** The window query of the current URL, as the API takes it. */
export function windowQuery(): { window?: (typeof WINDOWS)[number]; from?: string; to?: string } {
  const from = param('from');
  if (from) return { from, to: param('to') || undefined };
  const window = param('window') as (typeof WINDOWS)[number];
  return { window: WINDOWS.includes(window) ? window : '7d' };
}

/** An ISO instant as a datetime-local value (the browser's time) and back. */
const toLocal = (iso: string) => {
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const fromLocal = (value: string) => (value ? new Date(value).toISOString() : undefined);

export function WindowPicker({ resolved }: { resolved?: { from: string; to: string } }) {
  const query = windowQuery();
  const [custom, setCustom] = useState(Boolean(query.from));
  const [from, setFrom] = useState(query.from ? toLocal(query.from) : '');
  const [to, setTo] = useState(query.to ? toLocal(query.to) : '');
  const choose = (value: string) => {
    if (value === 'custom') {
      setCustom(true);
      if (resolved) {
        setFrom(toLocal(resolved.from));
        setTo(toLocal(resolved.to));
      }
      return;
    }
    setCustom(false);
    setParams({ window: value, from: undefined, to: undefined });
  };
  const freeze = () => {
    if (!resolved) return;
    setParams({ window: undefined, from: resolved.from, to: resolved.to });
    setFrom(toLocal(resolved.from));
    setTo(toLocal(resolved.to));
    setCustom(true);
  };
  return (
    <fieldset class="window-picker">
      <legend>Time window</legend>
      <label>
        Window
        <select
          value={custom ? 'custom' : (query.window ?? '7d')}
          onChange={(e) => choose(e.currentTarget.value)}
        >
          {WINDOWS.map((w) => (
            <option key={w} value={w}>
              {LABELS[w]}
            </option>
          ))}
          <option value="custom">Custom dates</option>
        </select>
      </label>
      {custom ? (
        <>
          <label>
            From
            <input
              type="datetime-local"
              value={from}
              onInput={(e) => setFrom(e.currentTarget.value)}
              required
            />
          </label>
          <label>
            To
            <input type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
          </label>
          <button
            type="button"
            disabled={!from}
            onClick={() => setParams({ window: undefined, from: fromLocal(from), to: fromLocal(to) })}
          >
            Apply dates
          </button>
        </>
      ) : (
        <button type="button" class="secondary" onClick={freeze} disabled={!resolved}>
          Freeze to dates
        </button>
      )}
    </fieldset>
  );
}
