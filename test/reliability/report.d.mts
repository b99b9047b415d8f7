// Types of what test/unit/reliability-report.test.ts imports from report.mjs.
export const START: string;
export const END: string;
/** Every id passed to record('<id>', …) in the reliability tests under `dir`. */
export function recordIds(dir?: string): string[];
