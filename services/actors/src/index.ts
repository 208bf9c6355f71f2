export { catalogTopicNames, createCatalogTopics } from './actors-role.ts';
export type { ActorsShared } from './role.ts';
export { actorsRole } from './role.ts';
