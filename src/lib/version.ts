// Replaced at build time by esbuild's define; tests running from source read package.json's.
declare const __PAY_VERSION__: string | undefined;
export const VERSION: string = typeof __PAY_VERSION__ === 'string' ? __PAY_VERSION__ : '0.0.0-dev';
