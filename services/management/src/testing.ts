// Stand-ins for tests (`@lattice/management/testing`); the management role always announces
// key changes over Redis.
import type { KeyChangeNotifier } from './notify/key-change-notifier.ts';

/** Announces nothing: tests of the app alone, where no edge listens. */
export const silentKeyChangeNotifier: KeyChangeNotifier = { keyChanged: async () => {} };
