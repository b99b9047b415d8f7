// Types of src/scripts/chalk.mjs: chalk's Chalk class.
import type { ChalkInstance, Options } from 'chalk';

export declare const Chalk: new (options?: Options) => ChalkInstance;
