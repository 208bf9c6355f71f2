// Test support (`@lattice/mail/testing`), never imported by production code.
export type { TestDnsMode, TestDnsServer } from './testing/test-dns-server.ts';
export { startTestDnsServer } from './testing/test-dns-server.ts';
