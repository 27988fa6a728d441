// PostgreSQL parses and plans every unnamed statement anew; a named one is parsed once per connection and
// then only bound and executed. The service's inserts (the hot path of every write: idempotency claim,
// record, audit, outbox and call events, as one data-modifying WITH or alone) go as named statements.
// Only inserts of values (no SELECT in them): their plans are trivial, so a generic plan is never worse;
// reads, updates and INSERT ... SELECT, whose best plan may depend on the values, stay unnamed.
// The main pool's connections (pg-driver.ts) ask here for the name of each statement with parameters.

const INSERT = /^\s*insert\b/i;
/** A WITH of inserts and key updates only (src/core/write-effects.ts). */
const WRITE_CTE = /^\s*with\b/i;
const READS = /\bselect\b/i;
/** Named statements a connection keeps at most; past it, new texts go unnamed (names live as long as it). */
const MAX_PER_CONNECTION = 200;

let counter = 0;
const names = new Map<string, string>();

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined) {
    if (!(INSERT.test(text) || WRITE_CTE.test(text)) || READS.test(text)) return undefined;
    if (names.size >= 10_000) return undefined;
    name = `wos_${(counter++).toString(36)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * The name to send `text` under on a connection that has parsed the statements in `prepared` (and will
 * parse this one now: it is added), or undefined to send it unnamed.
 */
export function statementName(text: string, prepared: Set<string>): string | undefined {
  const name = nameOf(text);
  if (!name || (!prepared.has(name) && prepared.size >= MAX_PER_CONNECTION)) return undefined;
  prepared.add(name);
  return name;
}
