export type {
  ActorKindRegistration,
  ActorsRole,
  ActorsRoleOptions,
  KafkaTopicSettings,
} from './actors-role.ts';
export { catalogTopicNames, createCatalogTopics, startActorsRole } from './actors-role.ts';
export type { ChannelActorRegistrationDeps, RealtimeJobsDeps } from './channel-actors.ts';
export { channelActorRegistration, channelCommandCodec, realtimeJobs } from './channel-actors.ts';
export type { PeriodicJob, PeriodicJobContext, RunningJobs } from './periodic-jobs.ts';
export { startPeriodicJobs } from './periodic-jobs.ts';
export type { ActorsSettings, ActorsShared } from './role.ts';
export { actorsRole, actorsSettingsOf } from './role.ts';
