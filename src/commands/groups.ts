// Every endpoint group, in the order root help lists them. Data only (start-up path).
import { accounts } from './accounts/index.js';
import { customers } from './customers/index.js';
import type { GroupSpec } from './spec.js';

export const allGroups: readonly GroupSpec[] = [customers, accounts];
