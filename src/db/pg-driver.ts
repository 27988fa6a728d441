// The main pool's Kysely driver on PostgreSQL. Transactions and savepoints are Kysely's PostgresDriver's; each
// query goes from our connection to its pg client in one step, where Kysely's PostgresConnection, a wrapper
// translating statement_timeout and a hook on the client naming inserts took three, and pg copied the query's
// config object on each: CPU on every statement of every call (docs/performance.md, "CPU per create").
import { type CompiledQuery, type DatabaseConnection, PostgresDriver, type QueryResult } from 'kysely';
import pg from 'pg';
import { statementName } from './pg-prepared.ts';

/** What a statement_timeout cancellation becomes (query_timeout); any other error is rethrown as it is. */
export type TranslateError = (error: unknown) => never;

class MainConnection implements DatabaseConnection {
  /** The named statements this connection has parsed (pg keeps them per connection). */
  readonly #prepared = new Set<string>();

  constructor(
    readonly client: pg.PoolClient,
    private readonly translate: TranslateError,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const values = compiled.parameters.length > 0 ? [...compiled.parameters] : undefined;
    const name = values && statementName(compiled.sql, this.#prepared);
    let result: pg.QueryResult;
    try {
      result = await new Promise<pg.QueryResult>((resolve, reject) => {
        // A text (not a config object, which pg copies property by property); the name set as pg reads it.
        const query = new pg.Query(compiled.sql, values, (error: Error | undefined, res: unknown) =>
          error ? reject(error) : resolve(res as pg.QueryResult),
        );
        if (name) (query as unknown as { name: string }).name = name;
        this.client.query(query);
      });
    } catch (error) {
      // The caller's stack after pg's (it starts in the socket's read), as Kysely's connection adds it.
      if (error instanceof Error && error.stack)
        error.stack += `\n${new Error().stack?.split('\n').slice(1).join('\n')}`;
      return this.translate(error);
    }
    const { command, rowCount, rows } = result;
    return {
      numAffectedRows:
        command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
          ? BigInt(rowCount ?? 0)
          : undefined,
      rows: (rows ?? []) as R[],
    };
  }

  // biome-ignore lint/correctness/useYield: the main pool streams nothing (no cursor), as Kysely's connection
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The main pool does not stream: no cursor is configured');
  }
}

/** Kysely's PostgresDriver over `pool`, with the connection above. */
export class MainPoolDriver extends PostgresDriver {
  readonly #pool: pg.Pool;
  readonly #translate: TranslateError;
  readonly #connections = new WeakMap<pg.PoolClient, MainConnection>();
  #destroyed = false;

  constructor(pool: pg.Pool, translate: TranslateError) {
    super({ pool });
    this.#pool = pool;
    this.#translate = translate;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.#pool.connect();
    if (this.#destroyed) {
      client.release();
      throw new Error('driver has already been destroyed');
    }
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new MainConnection(client, this.#translate);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as MainConnection).client.release();
  }

  override async destroy(): Promise<void> {
    this.#destroyed = true;
    await super.destroy();
  }
}
