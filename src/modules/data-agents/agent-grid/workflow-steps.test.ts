import { describe, expect, it } from 'vitest';
import { checkSteps, checkTrigger, type StepEnvironment, type StepInput } from './workflow-steps.ts';

const env: StepEnvironment = {
  toolInputs: (name) =>
    ({ search_contacts: ['query', 'limit'], create_task: ['title', 'description'] })[name],
  agentVersions: async (key) => (key === 'writer' ? { status: 'active', latest: 2 } : undefined),
};
const fieldsOf = async (steps: StepInput[]) => (await checkSteps(steps, env)).errors.map((e) => e.field);

describe('workflow steps', () => {
  it('accept references to the input and to earlier steps, at any depth', async () => {
    const { errors, steps } = await checkSteps(
      [
        { key: 'find', kind: 'tool', tool: 'search_contacts', arguments: { query: { $ref: 'input.email' } } },
        {
          key: 'draft',
          kind: 'agent',
          agent_key: 'writer',
          arguments: { items: [{ c: { $ref: 'steps.find.output.contacts.0' } }] },
        },
        {
          key: 'file',
          kind: 'tool',
          tool: 'create_task',
          arguments: { title: { $ref: 'steps.draft.output.title' } },
        },
      ],
      env,
    );
    expect(errors).toEqual([]);
    expect(steps[1]).toMatchObject({ kind: 'agent', tool: null, agent_version: null });
  });

  it('name the place of every unknown, forward, self or malformed reference', async () => {
    expect(
      await fieldsOf([
        {
          key: 'a',
          kind: 'tool',
          tool: 'search_contacts',
          arguments: { query: { $ref: 'steps.b.output.x' } },
        },
        { key: 'b', kind: 'tool', tool: 'create_task', arguments: { title: { $ref: 'steps.b.output' } } },
        { key: 'c', kind: 'tool', tool: 'create_task', arguments: { title: { $ref: 'steps.zz.output' } } },
        {
          key: 'd',
          kind: 'tool',
          tool: 'create_task',
          arguments: { description: [{ $ref: 'input.x', extra: 1 }] },
        },
        { key: 'e', kind: 'tool', tool: 'create_task', arguments: { title: { $ref: 42 } } },
      ]),
    ).toEqual([
      'steps[0].arguments.query',
      'steps[1].arguments.title',
      'steps[2].arguments.title',
      'steps[3].arguments.description[0]',
      'steps[4].arguments.title',
    ]);
  });
});

describe('workflow triggers', () => {
  const isEvent = (name: string) => name === 'contact.created';
  it('fill every field, null where unused, and default a schedule to midnight', () => {
    expect(checkTrigger({ type: 'schedule', cadence: 'weekly', day_of_week: 'monday' }, isEvent)).toEqual({
      errors: [],
      trigger: {
        type: 'schedule',
        event_type: null,
        cadence: 'weekly',
        time: '00:00',
        day_of_week: 'monday',
        day_of_month: null,
      },
    });
  });
  it('report a schedule without its cadence once', () => {
    const { errors } = checkTrigger({ type: 'schedule', time: '09:00' }, isEvent);
    expect(errors.map((e) => e.field)).toEqual(['trigger.cadence']);
  });
});
