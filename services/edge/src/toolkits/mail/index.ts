export type { MailToolkitDeps } from './mail-toolkit.ts';
export { mailToolkit } from './mail-toolkit.ts';
