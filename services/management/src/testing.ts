// Test support (`@lattice/management/testing`), never imported by production code: a real
// management server on the test database and Redis, and a listener on its key change channels.
export type { KeyChangeListener, KeyChangeMessage } from './testing/key-change-listener.ts';
export { listenForKeyChanges } from './testing/key-change-listener.ts';
export type { ApiAnswer, TestManagement } from './testing/test-management.ts';
export { startTestManagement } from './testing/test-management.ts';
