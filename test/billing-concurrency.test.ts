// Limits that concurrent calls cannot overdraw: prepaid credit, the month's cap and entitlements are checked
// and charged in the call's transaction against what the database holds, so creates racing on one node, or
// on two nodes over the same database, pass them exactly as many times as they allow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../src/app.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let sibling: Service;

beforeAll(async () => {
  h = await Harness.start();
  sibling = await h.startSibling();
});
afterAll(async () => {
  await sibling.app.close();
  await sibling.deps.database.close().catch(() => {});
  await h.close();
});

/** `n` contact creates at once, alternating between this node and the sibling; their statuses. */
async function raceCreates(ws: TestWorkspace, n: number): Promise<number[]> {
  const calls = Array.from({ length: n }, async (_, i) => {
    const body = { name: `racer ${i}` };
    if (i % 2 === 0) return (await h.request('POST', '/v1/contacts', { token: ws.apiKey, body })).status;
    const res = await sibling.app.inject({
      method: 'POST',
      url: '/v1/contacts',
      headers: { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    return res.statusCode;
  });
  return Promise.all(calls);
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

async function contacts(ws: TestWorkspace): Promise<number> {
  const row = await h.db
    .selectFrom('contacts')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('workspace_id', '=', ws.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function billing(ws: TestWorkspace) {
  const res = await h.admin('GET', `/workspaces/${ws.id}`);
  return res.body.workspace.billing as { credit_units: number | null };
}

describe('limits under concurrent creates', () => {
  it('never overdraws prepaid credit: exactly the affordable creates succeed', async () => {
    const ws = await h.workspace('Credit race');
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: 50 } });
    // Both nodes have the workspace cached before the race.
    expect((await raceCreates(ws, 2)).every((s) => s === 201)).toBe(true);
    const statuses = await raceCreates(ws, 70);
    expect(count(statuses, 201)).toBe(48);
    expect(count(statuses, 402)).toBe(22);
    expect((await billing(ws)).credit_units).toBe(0);
    expect(await contacts(ws)).toBe(50);
    // 40 more at once against a credit of 25: 25 pass, the credit ends at 0, never below.
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: 25 } });
    const more = await raceCreates(ws, 40);
    expect(count(more, 201)).toBe(25);
    expect(count(more, 402)).toBe(15);
    expect((await billing(ws)).credit_units).toBe(0);
    expect(await contacts(ws)).toBe(75);
  });

  it("lets at most the month's cap through, counting usage recorded on both nodes", async () => {
    const ws = await h.workspace('Cap race');
    expect((await raceCreates(ws, 4)).every((s) => s === 201)).toBe(true);
    // Set through this node: the month's counter starts from the 4 creates already made on both.
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { monthly_cap_units: 50 } });
    const statuses = await raceCreates(ws, 70);
    expect(count(statuses, 201)).toBe(46);
    expect(count(statuses, 402)).toBe(24);
    expect(await contacts(ws)).toBe(50);
    const usage = await h.db
      .selectFrom('billing_usage')
      .select('billed_units')
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(Number(usage.billed_units)).toBe(50);
  });

  it('creates exactly the entitled number of records, and a failed create charges nothing', async () => {
    const ws = await h.workspace('Entitlement race');
    await h.admin('PATCH', `/workspaces/${ws.id}`, {
      entitlements: { contact: 20 },
      billing: { credit_units: 100 },
    });
    const statuses = await raceCreates(ws, 40);
    expect(count(statuses, 201)).toBe(20);
    expect(count(statuses, 403)).toBe(20);
    expect(await contacts(ws)).toBe(20);
    // Refused creates rolled back whole: only the 20 created were charged.
    expect((await billing(ws)).credit_units).toBe(80);
    // Raising the entitlement on this node opens exactly the new room on both.
    await h.admin('PATCH', `/workspaces/${ws.id}`, { entitlements: { contact: 25 } });
    const more = await raceCreates(ws, 10);
    expect(count(more, 201)).toBe(5);
    expect(await contacts(ws)).toBe(25);
  });
});
