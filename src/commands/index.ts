// Every command that is not a resource group, in the order root help lists them (after the
// groups, src/commands/group-index.ts). Start-up path: declarations only.
import type { CommandDecl } from '../cmdutil/decl.js';
import { api } from './api/index.js';
import { login, logout } from './auth/index.js';
import { completion } from './completion/index.js';
import { doctor } from './doctor/index.js';
import { emulator } from './emulator/index.js';
import { help } from './help/index.js';
import { openapi } from './openapi/index.js';
import { profiles } from './profiles/index.js';
import { seed } from './seed/index.js';
import { trigger } from './trigger/index.js';

export const TOOLING: readonly CommandDecl[] = [login, logout, profiles, api, openapi, emulator, trigger, seed, doctor, completion, help];
