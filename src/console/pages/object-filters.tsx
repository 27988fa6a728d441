// The filters of Object Analytics (app, object type, object ID, event name), applied to the URL on submit.
import { useState } from 'preact/hooks';
import { param, setParams } from '../router.tsx';

const FIELDS = [
  ['app', 'App'],
  ['object_type', 'Object type'],
  ['object_id', 'Object ID'],
  ['event_name', 'Event name'],
] as const;

type Filters = Partial<Record<(typeof FIELDS)[number][0], string>>;

/** The filters of the current URL, as the API takes them (absent when empty). */
export function filterQuery(): Filters {
  return Object.fromEntries(FIELDS.map(([key]) => [key, param(key) || undefined]).filter(([, v]) => v));
}

export function FilterForm({ only }: { only?: string[] }) {
  const fields = FIELDS.filter(([key]) => !only || only.includes(key));
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(fields.map(([key]) => [key, param(key)])),
  );
  const apply = (event: Event) => {
    event.preventDefault();
    setParams(Object.fromEntries(fields.map(([key]) => [key, values[key]?.trim()])));
  };
  return (
    <form class="filters" onSubmit={apply} aria-label="Filters">
      {fields.map(([key, label]) => (
        <label key={key}>
          {label}
          <input
            name={key}
            value={values[key]}
            onInput={(e) => setValues({ ...values, [key]: e.currentTarget.value })}
          />
        </label>
      ))}
      <button type="submit">Apply filters</button>
    </form>
  );
}
