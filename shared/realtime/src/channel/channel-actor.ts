// The channel actor kind: the adapter around the pure channel logic. For each batch of a
// channel's records it decides every command, commits state, history rows, roster changes and
// the applied Kafka position in one fenced transaction, and only then fans out. A replay (a
// record at or before the stored position) is skipped by the host, so nothing is applied or
// fanned out twice; a stale owner's commit fails and the host reloads the actor.
import { randomBytes } from 'node:crypto';
import {
  type BackoffOptions,
  type Clock,
  isUuid,
  type Logger,
  RetryableError,
  retryWithBackoff,
  type Scheduler,
  systemScheduler,
  TerminalError,
} from '@lattice/core';
import {
  type Actor,
  type ActorKind,
  type ActorRecord,
  type AppliedPosition,
  NO_STAGE_TIMER,
} from '@lattice/kafka';
import type { Redis } from 'ioredis';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import { createRedisFanOut } from '../fanout/fanout.redis.ts';
import type { FanOut, FanOutMessage, PresenceResult } from '../fanout/fanout.ts';
import { channelNameProblem, namespaceOf } from '../names.ts';
import type { NamespaceRepository } from '../namespace-repository.ts';
import { type RealtimeStages, realtimeStages } from '../realtime-stages.ts';
import { type ChannelCommandRecord, channelIdOf, toChannelCommand } from './channel-command.ts';
import type { ChannelEntry } from './channel-entry.ts';
import { type ChannelId, parseChannelCommandKey, sameChannel } from './channel-id.ts';
import { decideChannel } from './channel-logic.ts';
import { type ChannelState, rosterChanges } from './channel-state.ts';
import { createPostgresChannelStore } from './channel-store.postgres.ts';
import { ChannelFencedError, type ChannelStore } from './channel-store.ts';
import { createNamespacePolicyCache, type NamespacePolicyLookup } from './policy-cache.ts';

export const CHANNEL_ACTOR_KIND = 'channel';

export interface ChannelActorDeps {
  store: ChannelStore;
  fanOut: FanOut;
  policies: NamespacePolicyLookup;
  logger: Logger;
  /** Default: the scheduler. */
  clock?: Clock;
  /** Waits between fan-out attempts. Default systemScheduler. */
  scheduler?: Scheduler;
  /** A new random epoch; replaceable in tests. */
  newEpoch?: () => string;
  /** Fan-out attempts after a commit before the delivery is dropped (gateways recover by offset). */
  fanOutAttempts?: number;
  fanOutBackoff?: BackoffOptions;
  /** Observes `fetched_applied` and `applied_fanned_out` (docs/architecture.md "Where the time goes"). */
  stages?: RealtimeStages;
}

export function randomEpoch(): string {
  return randomBytes(8).toString('hex');
}

function channelIdOfKey(key: string): ChannelId {
  const id = parseChannelCommandKey(key);
  if (!id || !isUuid(id.productId) || channelNameProblem(id.channel) !== null) {
    throw new TerminalError(`not a channel command key: ${JSON.stringify(key)}`);
  }
  return id;
}

export function channelActorKind(deps: ChannelActorDeps): ActorKind<ChannelCommandRecord> {
  const scheduler = deps.scheduler ?? systemScheduler;
  const clock = deps.clock ?? scheduler;
  const newEpoch = deps.newEpoch ?? randomEpoch;
  const attempts = deps.fanOutAttempts ?? 5;
  const backoff = deps.fanOutBackoff ?? { initialMs: 100, maxMs: 2_000, jitterRatio: 0.2 };
  const log = deps.logger.child({ component: 'channel-actor' });
  const stages: RealtimeStages = deps.stages ?? NO_STAGE_TIMER;

  async function deliver(id: ChannelId, messages: FanOutMessage[], results: PresenceResult[]): Promise<void> {
    if (messages.length === 0 && results.length === 0) return;
    try {
      await retryWithBackoff(() => deps.fanOut.deliver(id, messages, results), {
        scheduler,
        backoff,
        maxAttempts: attempts,
        beforeRetry(err, attempt) {
          log.warn({ err, channel: id.channel, attempt }, 'fan-out failed; retrying');
          return undefined;
        },
      });
    } catch (err) {
      // The batch is durable; subscribers see an offset gap and recover from history.
      log.error(
        {
          err,
          channel: id.channel,
          productId: id.productId,
          messages: messages.length,
          results: results.length,
        },
        'fan-out failed; delivery dropped',
      );
    }
  }

  return {
    name: CHANNEL_ACTOR_KIND,
    async load(key): Promise<Actor<ChannelCommandRecord>> {
      const id = channelIdOfKey(key);
      const namespace = namespaceOf(id.channel);
      const stored = await deps.store.load(id);
      let state: ChannelState | null = stored?.state ?? null;
      // What the stored row holds (the commit's fence), and what this actor has applied: they
      // differ after records that changed nothing (refusals), which need no write.
      let persisted: AppliedPosition | null = stored?.applied ?? null;
      let applied: AppliedPosition | null = persisted;

      return {
        applied: () => applied,
        async handle(records: ActorRecord<ChannelCommandRecord>[]) {
          const policy = await deps.policies.get(id.productId, namespace);
          const freshEpoch = newEpoch();
          const start = state;
          let next = state;
          const history: ChannelEntry[] = [];
          const messages: FanOutMessage[] = [];
          const results: PresenceResult[] = [];
          for (const r of records) {
            if (!sameChannel(channelIdOf(r.value), id)) {
              throw new TerminalError('the record names another channel than its key');
            }
            const command = toChannelCommand(r.value);
            if ('invalid' in command) throw new TerminalError(command.invalid);
            const decision = decideChannel(next, command, {
              channel: id.channel,
              nowMs: clock.nowMs(),
              policy,
              freshEpoch,
            });
            next = decision.state;
            for (const e of decision.effects) {
              if (e.type === 'append_history') history.push(e.entry);
              else if (e.type === 'fan_out') messages.push(e.message);
              else if (e.type === 'presence_result') results.push(e.result);
              else if (e.type === 'publish_refused') {
                log.warn(
                  { channel: id.channel, productId: id.productId, messageId: e.messageId, reason: e.reason },
                  'publish refused',
                );
              } else {
                log.info({ channel: id.channel, messageId: e.messageId }, 'duplicate publish dropped');
              }
            }
          }
          const last = records[records.length - 1]!;
          const position: AppliedPosition = { partition: last.partition, offset: last.offset };
          if (next !== null && next !== start) {
            const { put, remove } = rosterChanges(start, next);
            try {
              await deps.store.commit({
                id,
                expected: persisted,
                created: start === null,
                state: next,
                applied: position,
                history,
                presencePut: put,
                presenceRemove: remove,
              });
            } catch (err) {
              if (!(err instanceof ChannelFencedError)) throw err;
              log.warn(
                { channel: id.channel, productId: id.productId, partition: last.partition },
                err.message,
              );
              throw new RetryableError(err.message, 0, { cause: err });
            }
            persisted = position;
          }
          state = next;
          applied = position;
          const appliedAtMs = scheduler.nowMs();
          for (const r of records) {
            if (r.fetchedAtMs !== undefined) stages.observe('fetched_applied', appliedAtMs - r.fetchedAtMs);
          }
          await deliver(id, messages, results);
          stages.observeMany('applied_fanned_out', scheduler.nowMs() - appliedAtMs, messages.length);
        },
      };
    },
  };
}

export interface CreateChannelActorKindOptions {
  db: Knex;
  redis: Redis;
  namespaces: NamespaceRepository;
  logger: Logger;
  /** Default: the scheduler. */
  clock?: Clock;
  /** Default systemScheduler. */
  scheduler?: Scheduler;
  /** `config.redisKeyPrefix`. */
  keyPrefix: string;
  policyCacheTtlMs?: number;
  /** Where the stage histograms go (docs/architecture.md "Where the time goes"); none: not observed. */
  registry?: Registry;
}

/** The channel actor kind on PostgreSQL and Redis pub/sub. */
export function createChannelActorKind(opts: CreateChannelActorKindOptions): ActorKind<ChannelCommandRecord> {
  const scheduler = opts.scheduler ?? systemScheduler;
  const clock = opts.clock ?? scheduler;
  return channelActorKind({
    store: createPostgresChannelStore(opts.db),
    fanOut: createRedisFanOut({ redis: opts.redis, keyPrefix: opts.keyPrefix }),
    policies: createNamespacePolicyCache({
      repository: opts.namespaces,
      clock,
      ...(opts.policyCacheTtlMs !== undefined ? { ttlMs: opts.policyCacheTtlMs } : {}),
    }),
    logger: opts.logger,
    clock,
    scheduler,
    ...(opts.registry ? { stages: realtimeStages(opts.registry) } : {}),
  });
}
