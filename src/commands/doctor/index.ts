// `pay doctor`: declaration only (start-up path); run.ts runs the checks.
import type { CommandDecl } from '../../cmdutil/decl.js';

export const doctor: CommandDecl = {
  name: 'doctor',
  summary: 'Check the set-up and say what is wrong',
  description:
    "Check the config file permissions, the profile and mode in use and where each setting came from, the keys (masked), the base URL, the clock skew against the service, and that the service answers with the key, naming what answered at the base URL (a pay emulator, its version and data dir, or another server): a key refused by an emulator whose keys are not the profile's points at the base URL, not the key. Exit 0 only when every check passes.",
  // --json and --jq only (no -o, no --fields): the checks are not API objects.
  output: { projection: false, formats: ['json'] },
  examples: ['pay doctor', 'pay doctor --live -p acme'],
  prints: { json: '{ok, checks: [{ok, label, fix?, info?}]}' },
  run: () => import('./run.js').then((m) => m.run),
};
