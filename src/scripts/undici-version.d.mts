// Types of src/scripts/undici-version.mjs.
export declare const UNDICI_PATCHED: readonly string[];
export declare function undiciRefusal(version: string): string | undefined;
