// `pay login` and `pay logout`: declarations only (start-up path); login.ts and logout.ts run them.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const login: CommandDecl = {
  name: 'login',
  summary: 'Store keys and the tenant id in a profile',
  description:
    'Store keys and the tenant id in a profile (created if new).\n\n' +
    'On a terminal pay asks for the secret key (hidden), the public key, the tenant id and the webhook secret.\n' +
    'In scripts, pipe the secret key with --with-key; the other fields come from flags. --live stores the Live pair.',
  options: [
    { flags: '--with-key', description: 'read the secret key from standard input' },
    { flags: '--public-key <key>', description: 'public key of the mode (pk_…)' },
    {
      flags: '--webhook-secret-stdin',
      description: 'read the webhook secret (whsec_…) from standard input (after the key, on the next line, with --with-key)',
    },
    { flags: '--set-current', description: 'make this profile the current one (the first profile always is)' },
  ],
  examples: [
    'pay login',
    'printf %s "$PAY_SANDBOX_KEY" | pay login --with-key --tenant biz_123',
    'pay login -p acme --live --base-url https://api.example.com/v1/',
  ],
  prints: {
    note: 'nothing on stdout. On stderr, "✓ Logged in" with the profile, the mode and the secret key masked (sk_test_…a1b2). A key of the wrong mode or shape is exit 2 and nothing is stored.',
  },
  run: () => import('./login.js').then((m) => m.run),
};

export const logout: CommandDecl = {
  name: 'logout',
  summary: "Forget a profile's keys for the mode in use",
  description:
    'Forget the secret key, public key and webhook secret of the mode in use (--live for Live). The tenant id and base URL stay; pay profiles remove deletes the whole profile.',
  examples: ['pay logout', 'pay logout -p acme --live'],
  prints: {
    note: 'nothing on stdout; "✓ Logged out" on stderr. The other mode\'s keys stay. Exit 2 when the profile has no keys for the mode.',
  },
  run: () => import('./logout.js').then((m) => m.run),
};
