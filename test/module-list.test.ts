import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isScope, MODULES, type ModuleName, SCOPES, type Scope } from '../src/core/catalogue.ts';
import type { ModuleDefinition } from '../src/core/module.ts';
import { collectMigrations } from '../src/db/migrate.ts';
import type { DB } from '../src/db/tables.ts';
import { moduleList } from '../src/modules/module-list.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness } from './helpers/harness.ts';

// The names installations have recorded (Kysely's migration table): they must never change.
const RELEASED = [
  '0001-platform',
  '0002-crm-tasks-activity',
  '0003-crm-ledger',
  '0004-support-cms-assets',
  '0005-integrations-notifications',
  '0006-projects-products-calendar',
  '0007-rate-limits',
  '0008-asset-content-cleanup',
  '0009-outbox-relay',
  '0010-runs',
  '0011-product-analytics',
  '0012-search-index',
  '0013-record-counters',
  '0014-retention',
  '0015-app-event-daily',
  '0016-bi-queries',
  '0017-data-agents-vectors',
  '0018-data-agents-agent-grid',
  '0019-data-agents-jobs',
  '0020-data-agents-records',
  '0021-bi-schedules',
  '0022-bi-objects',
  '0023-bi-exports',
  '0025-data-agents-versions',
  '0026-bi-indexes',
  '0027-bi-call-event-days',
  '0028-outbox-failures',
  '0029-data-agents-plane-workers',
  '0030-mcp-sessions',
];

const noop = { up: async () => {} };

describe('a module declares itself', () => {
  it('ModuleName and Scope come from the module list: a mistyped scope, module or table fails the type check', () => {
    // The @ts-expect-error lines are the test: `npx tsc --noEmit` fails when one of them type-checks.
    // @ts-expect-error 'crm:wirte' is not a declared scope
    const mistyped: Scope = 'crm:wirte';
    // @ts-expect-error no module is named crn
    const module: ModuleName = 'crn';
    // @ts-expect-error no listed module has a contactz table
    const table: keyof DB = 'contactz';
    const scope: Scope = 'crm:write';
    const tables: (keyof DB)[] = ['contacts', 'assets', 'calendar_events', 'runs'];
    expect([isScope(mistyped), isScope(scope), MODULES.includes(module), tables.length, table]).toEqual([
      false,
      true,
      false,
      4,
      'contactz',
    ]);
  });

  it('every listed module contributes its name and scopes; every operation uses a declared scope', () => {
    for (const m of moduleList) {
      expect(MODULES).toContain(m.name);
      for (const scope of m.scopes) expect(SCOPES).toContain(scope);
    }
    expect(SCOPES).toContain('audit:read');
    expect(new Set(SCOPES).size).toBe(SCOPES.length);
    for (const op of buildRegistry().operations) {
      expect(MODULES).toContain(op.module);
      for (const scope of op.scopes) expect(SCOPES).toContain(scope);
    }
  });
});

describe('migrations', () => {
  it('keep the names installations recorded, wherever they are declared (crm and assets own theirs)', () => {
    expect(Object.keys(collectMigrations()).sort()).toEqual(RELEASED);
    const owned = (name: string) => Object.keys(moduleList.find((m) => m.name === name)?.migrations ?? {});
    expect(owned('crm')).toEqual(['0003-crm-ledger']);
    expect(owned('assets')).toEqual(['0008-asset-content-cleanup']);
  });

  it("collects a new module's migrations; refuses a name without a number or a number taken twice", () => {
    const widgets = (migrations: Record<string, typeof noop>): ModuleDefinition => ({
      name: 'crm',
      operations: [],
      migrations,
    });
    expect(Object.keys(collectMigrations([...moduleList, widgets({ '0099-widgets': noop })]))).toContain(
      '0099-widgets',
    );
    expect(() => collectMigrations([widgets({ widgets: noop })])).toThrow(/NNNN-<what>/);
    expect(() => collectMigrations([...moduleList, widgets({ '0010-widgets': noop })])).toThrow(
      /0010-runs and 0010-widgets .*share the number 0010/,
    );
  });

  describe('on a fresh installation', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await Harness.start();
    });
    afterAll(async () => {
      await h?.close();
    });

    it("runs every migration, the modules' own included, and records each under its released name", async () => {
      const db = h.db as unknown as Kysely<any>;
      const rows = await db.selectFrom('kysely_migration').select('name').orderBy('name').execute();
      expect(rows.map((r) => r.name)).toEqual(RELEASED);
      // 0003 (crm) and 0008 (assets) ran from their modules' folders.
      await db.selectFrom('journal_entries').select('id').limit(1).execute();
      await db.selectFrom('assets').select('content_deleted_at').limit(1).execute();
      // A restart finds every recorded migration and has nothing to run.
      h = await h.restart();
      const again = await (h.db as unknown as Kysely<any>)
        .selectFrom('kysely_migration')
        .select('name')
        .execute();
      expect(again).toHaveLength(RELEASED.length);
    });
  });
});
