// Test support (`@lattice/management/testing`), never imported by production code: a real
// management server on the test database and Redis, a listener on its key change channels, and
// a notifier that announces nothing (the management role always announces over Redis).
import type { KeyChangeNotifier } from './notify/key-change-notifier.ts';

export type {
  KeyChangeListener,
  KeyChangeMessage,
  ManagementWithKeyChanges,
} from './testing/key-change-listener.ts';
export { listenForKeyChanges, useManagementWithKeyChanges } from './testing/key-change-listener.ts';
export type { ApiAnswer, TestManagement } from './testing/test-management.ts';
export { startTestManagement } from './testing/test-management.ts';

/** Announces nothing: tests of the app alone, where no edge listens. */
export const silentKeyChangeNotifier: KeyChangeNotifier = { keyChanged: async () => {} };
