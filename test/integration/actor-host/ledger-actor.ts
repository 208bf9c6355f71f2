// A test actor whose state lives in PostgreSQL. Each key receives seq 1, 2, 3… and the actor
// records every application in ledger_applied (no unique constraint, so a double application
// shows up as a duplicate row) and every out-of-order seq in ledger_violations. State and the
// applied Kafka position are written in one transaction, fenced so that a zombie owner can
// never move a key's position backwards.

import { RetryableError, sleep, TerminalError } from '@lattice/core';
import type { Actor, ActorKind, ActorRecord, AppliedPosition } from '@lattice/kafka';
import type { Knex } from 'knex';

export interface LedgerCommand {
  seq: number;
}

export const LEDGER_SCHEMA = {
  type: 'record',
  name: 'LedgerCommand',
  namespace: 'lattice.test',
  fields: [{ name: 'seq', type: 'int' }],
};

export async function createLedgerTables(db: Knex): Promise<void> {
  await db.raw(`
    CREATE TABLE IF NOT EXISTS ledger_state (
      topic text NOT NULL, key text NOT NULL, kafka_partition int NOT NULL,
      applied_offset bigint NOT NULL, last_seq int NOT NULL, PRIMARY KEY (topic, key));
    CREATE TABLE IF NOT EXISTS ledger_applied (
      topic text NOT NULL, key text NOT NULL, seq int NOT NULL, kafka_offset bigint NOT NULL,
      host text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
    CREATE INDEX IF NOT EXISTS ledger_applied_topic ON ledger_applied (topic, key, seq);
    CREATE TABLE IF NOT EXISTS ledger_violations (
      topic text NOT NULL, key text NOT NULL, expected int NOT NULL, got int NOT NULL);
    CREATE TABLE IF NOT EXISTS ledger_fenced (
      topic text NOT NULL, key text NOT NULL, host text NOT NULL, kafka_offset bigint NOT NULL);`);
}

export interface LedgerOptions {
  db: Knex;
  topic: string;
  host: string;
  /** Per-record processing time, to keep work in flight when a host is killed. */
  delayMs?: number;
  /** seq values the actor refuses forever (poison records). */
  poisonSeqs?: number[];
  /** seq values that fail once with a retryable error before applying. */
  flakySeqs?: number[];
  /** Records of this key fail (retryably) until this time. */
  failKey?: string;
  failUntilMs?: number;
}

class Fenced extends Error {}

export function createLedgerKind(opts: LedgerOptions): ActorKind<LedgerCommand> {
  const flakyLeft = new Set(opts.flakySeqs ?? []);
  return {
    name: 'ledger',
    async load(key, partition): Promise<Actor<LedgerCommand>> {
      const row = await opts
        .db('ledger_state')
        .where({ topic: opts.topic, key })
        .first<{ kafka_partition: number; applied_offset: string; last_seq: number } | undefined>();
      let applied: AppliedPosition | null = row
        ? { partition: row.kafka_partition, offset: BigInt(row.applied_offset) }
        : null;
      let lastSeq = row?.last_seq ?? 0;
      return {
        applied: () => applied,
        async handle(records: ActorRecord<LedgerCommand>[]) {
          for (const r of records) {
            if (opts.poisonSeqs?.includes(r.value.seq))
              throw new TerminalError(`seq ${r.value.seq} is poison`);
            if (flakyLeft.delete(r.value.seq)) throw new RetryableError(`seq ${r.value.seq} is flaky`, 10);
          }
          if (key === opts.failKey && Date.now() < (opts.failUntilMs ?? 0)) {
            throw new RetryableError(`${key} is failing for a while`, 500);
          }
          if (opts.delayMs) await sleep(opts.delayMs * records.length);
          let seq = lastSeq;
          const appliedRows: Array<Record<string, string | number>> = [];
          const violations: Array<Record<string, string | number>> = [];
          for (const r of records) {
            if (r.value.seq !== seq + 1)
              violations.push({ topic: opts.topic, key, expected: seq + 1, got: r.value.seq });
            seq = r.value.seq;
            appliedRows.push({
              topic: opts.topic,
              key,
              seq,
              kafka_offset: r.offset.toString(),
              host: opts.host,
            });
          }
          const last = records[records.length - 1]!;
          // The guard is a safety net only: a fenced write means the host let two owners apply
          // one key, which the tests assert never happens (ledger_fenced stays empty).
          try {
            await opts.db.transaction(async (trx) => {
              const updated = await trx.raw(
                `INSERT INTO ledger_state (topic, key, kafka_partition, applied_offset, last_seq)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (topic, key) DO UPDATE SET kafka_partition = excluded.kafka_partition,
                 applied_offset = excluded.applied_offset, last_seq = excluded.last_seq
               WHERE ledger_state.kafka_partition <> excluded.kafka_partition
                  OR ledger_state.applied_offset < excluded.applied_offset`,
                [opts.topic, key, partition, last.offset.toString(), seq],
              );
              if (updated.rowCount !== 1) throw new Fenced();
              await trx('ledger_applied').insert(appliedRows);
              if (violations.length > 0) await trx('ledger_violations').insert(violations);
            });
          } catch (err) {
            if (!(err instanceof Fenced)) throw err;
            await opts
              .db('ledger_fenced')
              .insert({ topic: opts.topic, key, host: opts.host, kafka_offset: last.offset.toString() });
            throw new RetryableError('fenced: a newer owner applied this key', 0);
          }
          lastSeq = seq;
          applied = { partition: last.partition, offset: last.offset };
        },
      };
    },
  };
}
