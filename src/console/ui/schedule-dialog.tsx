// Schedules a report, query, export or insight view: cadence Hourly, Daily, Weekly or Monthly (a day of the
// month, or its last day), local hour and minute, and timezone (the browser's by default).
import { useState } from 'preact/hooks';
import { api, ok, pressKey, type Schemas } from '../api.ts';
import { timezone as browserZone, when } from '../format.ts';
import { Dialog } from './dialog.tsx';
import { Field } from './page.tsx';
import { ErrorView, toApiError } from './states.tsx';

type Artifact = Schemas['BiScheduledArtifact'];
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export function ScheduleButton({
  target,
  name,
  onScheduled,
}: {
  target: Artifact['target'];
  name: string;
  onScheduled: (artifact: Artifact) => void;
}) {
  const [open, setOpen] = useState(false);
  const [cadence, setCadence] = useState<'hourly' | 'daily' | 'weekly' | 'monthly'>('daily');
  const [hour, setHour] = useState('6');
  const [minute, setMinute] = useState('0');
  const [weekday, setWeekday] = useState<(typeof WEEKDAYS)[number]>('monday');
  const [day, setDay] = useState('last');
  const [zone, setZone] = useState(browserZone);
  const [error, setError] = useState<ReturnType<typeof toApiError> | null>(null);
  const [done, setDone] = useState('');
  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const { scheduled_artifact } = await ok(
        api.POST('/v1/bi/scheduled-artifacts', {
          body: {
            name: `${name} (${cadence})`,
            target,
            cadence,
            minute: Number(minute),
            hour: cadence === 'hourly' ? undefined : Number(hour),
            weekday: cadence === 'weekly' ? weekday : undefined,
            day_of_month: cadence === 'monthly' ? (day === 'last' ? 'last' : Number(day)) : undefined,
            timezone: zone,
            idempotency_key: pressKey(),
          },
        }),
      );
      setDone(`Scheduled: next run ${when(scheduled_artifact.next_run_at)}.`);
      setOpen(false);
      onScheduled(scheduled_artifact);
    } catch (failure) {
      setError(toApiError(failure));
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={() => setOpen(true)}>
        Schedule
      </button>
      {done && (
        <span role="status" class="note">
          {done}
        </span>
      )}
      <Dialog title={`Schedule ${name}`} open={open} onClose={() => setOpen(false)}>
        <form class="stack" onSubmit={save}>
          <Field label="Cadence">
            <select value={cadence} onChange={(e) => setCadence(e.currentTarget.value as typeof cadence)}>
              <option value="hourly">Hourly</option>
              <option value="daily">Daily</option>
              <option value="weekly">Weekly</option>
              <option value="monthly">Monthly</option>
            </select>
          </Field>
          {cadence === 'weekly' && (
            <Field label="Weekday">
              <select value={weekday} onChange={(e) => setWeekday(e.currentTarget.value as typeof weekday)}>
                {WEEKDAYS.map((d) => (
                  <option key={d} value={d}>
                    {d[0]!.toUpperCase() + d.slice(1)}
                  </option>
                ))}
              </select>
            </Field>
          )}
          {cadence === 'monthly' && (
            <Field label="Day of month">
              <select value={day} onChange={(e) => setDay(e.currentTarget.value)}>
                <option value="last">Last day of month</option>
                {Array.from({ length: 31 }, (_, i) => (
                  <option key={i} value={String(i + 1)}>
                    {i + 1}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <div class="row">
            {cadence !== 'hourly' && (
              <Field label="Hour (0-23)">
                <input
                  type="number"
                  min={0}
                  max={23}
                  value={hour}
                  onInput={(e) => setHour(e.currentTarget.value)}
                />
              </Field>
            )}
            <Field label="Minute (0-59)">
              <input
                type="number"
                min={0}
                max={59}
                value={minute}
                onInput={(e) => setMinute(e.currentTarget.value)}
              />
            </Field>
          </div>
          <Field label="Timezone">
            <input value={zone} onInput={(e) => setZone(e.currentTarget.value)} />
          </Field>
          {error && <ErrorView error={error} />}
          <div class="actions">
            <button type="submit">Save schedule</button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
