// Every column of the schema that holds a value sealed with the platform keyring: what
// `lattice secrets reseal` re-seals after a rotation. Each toolkit lists its own (the purposes
// are its own); the command, which serves the whole platform, joins them here. The suite checks
// that every `*_sealed` column of the schema is listed (test/integration/cli-secrets.test.ts).
import { MAIL_SEALED_COLUMNS } from '@lattice/mail';
import { REALTIME_SEALED_COLUMNS } from '@lattice/realtime';
import type { SealedColumn } from '@lattice/store';

export const SEALED_COLUMNS: readonly SealedColumn[] = [...MAIL_SEALED_COLUMNS, ...REALTIME_SEALED_COLUMNS];
