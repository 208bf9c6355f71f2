export type { ActorKindRegistration, ActorsRole, ActorsRoleOptions } from './actors-role.ts';
export { catalogTopicNames, createCatalogTopics, startActorsRole } from './actors-role.ts';
