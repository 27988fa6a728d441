// The main pool's Kysely driver on PostgreSQL. Savepoints are Kysely's PostgresDriver's; each query goes from
// our connection to its pg client in one step, where Kysely's PostgresConnection, a wrapper translating
// statement_timeout and a hook on the client naming inserts took three, and pg copied the query's config object
// on each. A transaction's BEGIN goes with its first statement and its COMMIT may go with its last: two round
// trips fewer. CPU on every statement of every call (docs/performance.md, "CPU per create").
import {
  type CompiledQuery,
  type DatabaseConnection,
  PostgresDriver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { statementName } from './pg-prepared.ts';

/** What a statement_timeout cancellation becomes (query_timeout); any other error is rethrown as it is. */
export type TranslateError = (error: unknown) => never;

const COMMITS = Symbol('commits its transaction');

/**
 * Marks the last statement of a transaction whose work returns right after it (the write effects of a
 * call): the connection sends the transaction's COMMIT with it, one round trip for both. If the statement
 * fails, its transaction is aborted and that COMMIT ends it as a rollback: nothing of it is kept, as before.
 * Outside a transaction the mark does nothing; a statement sent after it on the same transaction throws.
 */
export function commitsTransaction(query: CompiledQuery): CompiledQuery {
  return { ...query, [COMMITS]: true } as CompiledQuery;
}

type Sent = Promise<pg.QueryResult>;
type Callback = (error: Error | undefined, result: unknown) => void;

/** The parts of pg's Query and Connection that a statement sent after BEGIN uses (as pg-cursor does). */
interface WireConnection {
  parse(message: { text: string }): void;
  bind(message: object): void;
  execute(message: object): void;
  parsedStatements: Record<string, string>;
}
interface WireQuery {
  name?: string;
  prepare(connection: WireConnection): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
}
const Query = pg.Query as unknown as new (
  text: string,
  values: unknown[] | undefined,
  done: Callback,
) => WireQuery;

/**
 * A statement sent in one batch after its transaction's BEGIN, before one Sync: PostgreSQL skips what follows
 * a failed message until the Sync, so the statement never runs outside the transaction. Only for a statement
 * already parsed on the connection (or unnamed): the BEGIN's ParseComplete is taken by pg for the query's.
 */
class AfterBegin extends Query {
  #begun = false;

  override prepare(connection: WireConnection): void {
    connection.parse({ text: 'begin' });
    connection.bind({});
    connection.execute({});
    super.prepare(connection);
  }

  override handleCommandComplete(message: unknown, connection: WireConnection): void {
    if (this.#begun) super.handleCommandComplete(message, connection);
    else this.#begun = true; // BEGIN's
  }
}

/** Whether pg was handed this query with its transaction's BEGIN in front (the write bench counts). */
export function sentWithBegin(query: unknown): boolean {
  return query instanceof AfterBegin;
}

class MainConnection implements DatabaseConnection {
  /** The named statements this connection has parsed (pg keeps them per connection). */
  readonly #prepared = new Set<string>();
  /** Between the driver's BEGIN and its COMMIT or ROLLBACK. */
  inTransaction = false;
  /** A BEGIN not sent yet: it goes with the transaction's first statement. */
  pendingBegin = false;
  /** The COMMIT sent with a transaction's last statement, until the driver's commit or rollback takes it. */
  sentCommit: Sent | undefined;

  constructor(
    readonly client: pg.PoolClient,
    private readonly translate: TranslateError,
  ) {}

  #send(text: string, values?: unknown[], name?: string, afterBegin = false): Sent {
    return new Promise<pg.QueryResult>((resolve, reject) => {
      // A text (not a config object, which pg copies property by property); the name set as pg reads it. The
      // callback is an argument, not a named const: tsx would name it with a defineProperty on every query.
      const query = new (afterBegin ? AfterBegin : Query)(text, values, (error, res) =>
        error ? reject(error) : resolve(res as pg.QueryResult),
      );
      if (name) query.name = name;
      this.client.query(query as unknown as pg.Query);
    });
  }

  /**
   * Whether a pending BEGIN can go with this statement (see AfterBegin): one with parameters (sent as a
   * prepared statement anyway; a text without them may hold several commands, which only the simple
   * protocol takes), unnamed or already parsed on this connection.
   */
  #beginsWith(text: string, values: unknown[] | undefined, name: string | undefined): boolean {
    const wire = this.client.connection as unknown as WireConnection;
    return values !== undefined && (name === undefined || wire.parsedStatements[name] === text);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (this.sentCommit) throw new Error('A statement after the one that committed its transaction');
    const values = compiled.parameters.length > 0 ? [...compiled.parameters] : undefined;
    const name = values && statementName(compiled.sql, this.#prepared);
    let begin = this.pendingBegin;
    this.pendingBegin = false;
    let result: pg.QueryResult;
    try {
      if (begin && !this.#beginsWith(compiled.sql, values, name)) {
        await this.#send('begin'); // the first use of this statement on the connection
        begin = false;
      }
      if (this.inTransaction && (compiled as { [COMMITS]?: true })[COMMITS]) {
        // The pool's clients pipeline (database.ts): both go out in one write, before either answer.
        const stream = this.client.connection.stream;
        stream.cork();
        const statement = this.#send(compiled.sql, values, name, begin);
        const commit = this.#send('commit');
        stream.uncork();
        this.sentCommit = commit;
        commit.catch(() => {}); // awaited below unless the statement failed (then it ended as ROLLBACK)
        result = await statement;
        await commit;
      } else {
        result = await this.#send(compiled.sql, values, name, begin);
      }
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

  /** Ends the transaction state; the COMMIT sent with its last statement, if one was. */
  endTransaction(): Sent | undefined {
    const sent = this.sentCommit;
    this.inTransaction = false;
    this.pendingBegin = false;
    this.sentCommit = undefined;
    return sent;
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

  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const main = connection as MainConnection;
    // A plain BEGIN waits for the first statement; one with settings goes now.
    if (settings.isolationLevel || settings.accessMode) await super.beginTransaction(connection, settings);
    else main.pendingBegin = true;
    main.inTransaction = true;
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const main = connection as MainConnection;
    const unopened = main.pendingBegin; // no statement ran: nothing was begun
    // Sent with the last statement, which threw if either failed.
    if (main.endTransaction() || unopened) return;
    await super.commitTransaction(connection);
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const main = connection as MainConnection;
    const unopened = main.pendingBegin;
    // The statement sent with the COMMIT failed (else nothing would roll back): that COMMIT rolled back.
    const sent = main.endTransaction();
    if (sent) await sent.catch(() => {});
    else if (!unopened) await super.rollbackTransaction(connection);
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as MainConnection).endTransaction();
    (connection as MainConnection).client.release();
  }

  override async destroy(): Promise<void> {
    this.#destroyed = true;
    await super.destroy();
  }
}
