// The `wos` command: serve, migrate, and the operator actions of /admin/v1 done directly on the database.
import { parseArgs } from 'node:util';
import { rotateOperatorToken } from '../admin/bootstrap.ts';
import { lookupRequest } from '../admin/request-lookup.ts';
import {
  createCredential,
  createWorkspace,
  getWorkspace,
  listCredentials,
  listWorkspaces,
  type OperatorCall,
  revokeCredential,
  updateWorkspace,
  type WorkspacePatch,
} from '../admin/workspace-admin.ts';
import { type Config, loadConfig } from '../config.ts';
import { isScope, SCOPES } from '../core/catalogue.ts';
import { systemClock } from '../core/clock.ts';
import { ServiceError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { rebuildRecordCounters } from '../core/record-counters.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { serve } from '../server.ts';

const USAGE = `Usage: wos <command>

  serve [--port N] [--host H] [--data-dir DIR] [--database-url URL]   run the service
  migrate                                                             apply database migrations
  workspace create --name NAME [--modules crm,tasks,...]
  workspace list
  workspace update WORKSPACE_ID [--name NAME] [--enable MODULE]... [--disable MODULE]...
                   [--rate-limit N|none] [--credit N|none] [--monthly-cap N|none] [--mcp-auth-methods mcp_token,api_key]
  credential create WORKSPACE_ID --kind api_key|mcp_token --name NAME --scopes all|crm:read,crm:write,...
  credential list WORKSPACE_ID
  credential revoke CREDENTIAL_ID
  request show REQUEST_ID
  counters rebuild [WORKSPACE_ID]                                     recompute the record counters (all workspaces when none)
  operator-token rotate                                               make WOS_ADMIN_TOKEN the operator token (the old one stops working)

Configuration comes from the environment (PORT, HOST, WOS_DATA_DIR, WOS_DATABASE_URL, ...); see README.md.`;

const options = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  name: { type: 'string' },
  modules: { type: 'string' },
  enable: { type: 'string', multiple: true },
  disable: { type: 'string', multiple: true },
  'rate-limit': { type: 'string' },
  credit: { type: 'string' },
  'monthly-cap': { type: 'string' },
  'mcp-auth-methods': { type: 'string' },
  kind: { type: 'string' },
  scopes: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const list = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;
const countOrNone = (value: string | undefined) =>
  value === undefined ? undefined : value === 'none' ? null : Number.parseInt(value, 10);

function configFrom(values: Record<string, unknown>): Config {
  const env = { ...process.env };
  if (values['data-dir']) env.WOS_DATA_DIR = String(values['data-dir']);
  if (values['database-url']) env.WOS_DATABASE_URL = String(values['database-url']);
  if (values.port) env.PORT = String(values.port);
  if (values.host) env.HOST = String(values.host);
  return loadConfig(env);
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const [command, sub, target] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = configFrom(values);
  if (command === 'serve') return serve(config);

  // Operator commands (counter rebuilds, migrations) may run longer than an API call's statement timeout.
  const database = openDatabase({ ...config, statementTimeoutMs: 0 });
  const print = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  };
  try {
    await migrateToLatest(database.db, database.dialect === 'postgres' ? config.databaseSchema : undefined);
    const call: OperatorCall = {
      db: database.db,
      clock: systemClock,
      requestId: newId('req'),
      surface: 'cli',
      defaultRateLimitPerMinute: config.defaultRateLimitPerMinute,
    };
    const need = (value: string | undefined, what: string) => {
      if (!value) throw new Error(`Missing ${what}.\n\n${USAGE}`);
      return value;
    };
    switch (`${command} ${sub ?? ''}`.trim()) {
      case 'migrate':
        return print({ migrated: true, database: database.location });
      case 'workspace create':
        return print({
          workspace: await createWorkspace(call, {
            name: need(values.name, '--name'),
            modules: list(values.modules),
          }),
        });
      case 'workspace list':
        return print({ workspaces: await listWorkspaces(database.db) });
      case 'workspace update': {
        const modules: Record<string, boolean> = {};
        for (const m of values.enable ?? []) modules[m] = true;
        for (const m of values.disable ?? []) modules[m] = false;
        const patch: WorkspacePatch = {
          ...(values.name ? { name: values.name } : {}),
          ...(Object.keys(modules).length ? { modules } : {}),
          ...(values['rate-limit'] !== undefined
            ? { rate_limit_per_minute: countOrNone(values['rate-limit']) }
            : {}),
          ...(values['mcp-auth-methods']
            ? { mcp_auth_methods: list(values['mcp-auth-methods']) as WorkspacePatch['mcp_auth_methods'] }
            : {}),
        };
        if (values.credit !== undefined || values['monthly-cap'] !== undefined) {
          patch.billing = {
            ...(values.credit !== undefined ? { credit_units: countOrNone(values.credit) } : {}),
            ...(values['monthly-cap'] !== undefined
              ? { monthly_cap_units: countOrNone(values['monthly-cap']) }
              : {}),
          };
        }
        return print({ workspace: await updateWorkspace(call, need(target, 'WORKSPACE_ID'), patch) });
      }
      case 'credential create': {
        const kind = need(values.kind, '--kind');
        if (kind !== 'api_key' && kind !== 'mcp_token')
          throw new Error('--kind must be api_key or mcp_token');
        const scopes = values.scopes === 'all' ? [...SCOPES] : (list(values.scopes) ?? []);
        const unknown = scopes.filter((s) => !isScope(s));
        if (unknown.length || scopes.length === 0)
          throw new Error(`--scopes: unknown or empty (${unknown.join(', ')})`);
        return print(
          await createCredential(call, need(target, 'WORKSPACE_ID'), {
            kind,
            name: need(values.name, '--name'),
            scopes,
          }),
        );
      }
      case 'credential list':
        return print({ credentials: await listCredentials(database.db, need(target, 'WORKSPACE_ID')) });
      case 'credential revoke':
        await revokeCredential(call, need(target, 'CREDENTIAL_ID'));
        return print({ revoked: true, credential_id: target });
      case 'counters rebuild':
        if (target) await getWorkspace(database.db, target); // an unknown ID is an error, not a no-op
        return print({ ...(await rebuildRecordCounters(database.db, target)), workspace_id: target ?? null });
      case 'operator-token rotate':
        if (!config.adminToken)
          throw new Error('Set WOS_ADMIN_TOKEN to the new operator token (at least 32 characters).');
        await rotateOperatorToken(database.db, config.adminToken);
        return print({ rotated: true, database: database.location });
      case 'request show':
        return print({ request: await lookupRequest(database.db, need(target, 'REQUEST_ID')) });
      default:
        throw new Error(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}`);
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message =
    error instanceof ServiceError ? `${error.code}: ${error.message}` : (error as Error).message;
  process.stderr.write(`wos: ${message}\n`);
  process.exit(1);
});
