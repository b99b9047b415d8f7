// `pay login` and `pay logout`: declarations only (start-up path); login.ts and logout.ts run them.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const login: CommandDecl = {
  name: 'login',
  summary: 'Store keys and the tenant id in a profile',
  description:
    'Store keys and the tenant id in a profile (created if new).\n\n' +
    'On a terminal pay asks where the service is (the emulators it finds answering, the default, or another URL; not when --base-url or PAY_BASE_URL says), ' +
    'then for the secret key (hidden), the public key, the tenant id and the webhook secret (hidden), and checks the key there with one request before saving: ' +
    'a refusal says whether the key, the tenant id or the base URL is likely wrong, and nothing is saved.\n' +
    'In scripts, pipe the secret key with --with-key; the other fields come from flags, and nothing is sent unless --check asks. --live stores the Live pair.',
  options: [
    { flags: '--with-key', description: 'read the secret key from standard input' },
    { flags: '--public-key <key>', description: 'public key of the mode (pk_…)' },
    {
      flags: '--webhook-secret-stdin',
      description: 'read the webhook secret (whsec_…) from standard input (after the key, on the next line, with --with-key)',
    },
    { flags: '--set-current', description: 'make this profile the current one (the first profile always is)' },
    { flags: '--check', description: 'with --with-key: check the key against the base URL first (one request; a refusal saves nothing)' },
  ],
  examples: [
    'pay login',
    'printf %s "$PAY_SANDBOX_KEY" | pay login --with-key --tenant biz_123',
    'printf %s "$PAY_SANDBOX_KEY" | pay login --with-key --check --base-url http://127.0.0.1:8787/v1/',
    'pay login -p acme --live --base-url https://api.example.com/v1/',
  ],
  prints: {
    note: 'nothing on stdout. On stderr, "✓ Logged in" with the profile, the mode and the secret key masked (sk_test_…a1b2). A key of the wrong mode or shape is exit 2, a key the service refuses exit 3 (nothing answering exit 6), and nothing is stored.',
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
