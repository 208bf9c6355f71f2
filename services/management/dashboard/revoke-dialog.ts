// Public Access's revoke confirmation (confirm-dialog.ts, `#revoke-…` in the page): the page's
// wording says revoking is permanent and that the edge may accept the key for up to about 30 s
// more; this names the key exactly, since names may repeat: its visible characters and its scope.
import type { PublicKeyView } from './api-types.ts';
import { type ConfirmDialog, createConfirmDialog } from './confirm-dialog.ts';
import { describeReach } from './scope-options.ts';

export type RevokeDialog = ConfirmDialog<PublicKeyView>;

export function createRevokeDialog(deps: {
  /** Revokes the key through the API; a throw is shown in the dialog. */
  revoke(key: PublicKeyView): Promise<void>;
  /** Where focus goes when the opener is gone (its row changed). */
  fallbackFocus(): HTMLElement;
}): RevokeDialog {
  return createConfirmDialog<PublicKeyView>('revoke', {
    describe(key) {
      const reach = describeReach(key.scope, key.toolkits);
      return {
        name: key.name,
        summary: `${key.prefix}${key.visible}… · ${key.environment} · ${reach.toolkits}: ${reach.detail}`,
      };
    },
    confirm: deps.revoke,
    fallbackFocus: deps.fallbackFocus,
  });
}
