// The webhook signing secret for verify and listen: --secret, then PAY_WEBHOOK_SECRET, then the
// profile's webhook secret for the mode in use. Never printed. Its shape is the shared one
// (src/shared/signature.ts): base64, with or without `whsec_` before it, as the standardwebhooks
// and svix libraries take it.
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';
import { isWebhookSecret, WEBHOOK_SECRET_HINT } from '../../shared/signature.js';

export function webhookSecret(f: Factory, flag: unknown): string {
  // An explicitly empty --secret never gets here: the root command refuses it (src/commands/root.ts).
  if (typeof flag === 'string') {
    if (!isWebhookSecret(flag)) throw new UsageError(`--secret is not a webhook secret: ${WEBHOOK_SECRET_HINT}`);
    return flag;
  }
  const s = f.settings();
  const secret = s.webhookSecret.value;
  if (!secret) {
    throw new UsageError(`no webhook secret for profile "${s.profileName.value}" (${s.mode.value})`, {
      hint: 'pass --secret whsec_…, set PAY_WEBHOOK_SECRET, or store it: pay profiles set webhook_secret -',
    });
  }
  if (!isWebhookSecret(secret))
    throw new UsageError(`the webhook secret from ${s.webhookSecret.origin} is not one: ${WEBHOOK_SECRET_HINT}`);
  return secret;
}
