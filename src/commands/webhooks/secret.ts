// The webhook signing secret for verify and listen: --secret, then PAY_WEBHOOK_SECRET, then the
// profile's webhook secret for the mode in use. Never printed.
import { UsageError } from '../../lib/errors.js';
import type { Factory } from '../../cmdutil/factory.js';

const SHAPE = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

export function webhookSecret(f: Factory, flag: unknown): string {
  if (typeof flag === 'string' && flag !== '') {
    if (!SHAPE.test(flag)) throw new UsageError('--secret must be whsec_ followed by base64');
    return flag;
  }
  const s = f.settings();
  const secret = s.webhookSecret.value;
  if (!secret) {
    throw new UsageError(`no webhook secret for profile "${s.profileName.value}" (${s.mode.value})`, {
      hint: 'pass --secret whsec_…, set PAY_WEBHOOK_SECRET, or store it: pay profiles set webhook_secret -',
    });
  }
  if (!SHAPE.test(secret)) throw new UsageError(`the webhook secret from ${s.webhookSecret.origin} must be whsec_ followed by base64`);
  return secret;
}
