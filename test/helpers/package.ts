// What the package tests share (test/e2e/package.test.ts packs a clean checkout,
// test/reliability/attack-build.test.ts packs this checkout's build): npm's environment and the
// runtime dependencies a package bundles, read from package-lock.json.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** This process's environment without its npm_* settings, and npm quiet (no notifier, fund, audit). */
export function npmEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  return Object.assign(env, {
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_loglevel: 'warn',
  });
}

/** The top-level node_modules/<name> paths package-lock.json lists for runtime (not dev). */
export function runtimeDependencyPaths(root: string): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(
      ([path, entry]) =>
        path.startsWith('node_modules/') && !path.includes('/node_modules/', 'node_modules/'.length) && !entry.dev && !entry.devOptional,
    )
    .map(([path]) => path);
}

/** Copies those paths (and `extra` ones) that exist under root into dest, links as links. */
export function copyDependencies(root: string, dest: string, paths: readonly string[]): void {
  for (const path of paths)
    if (existsSync(join(root, path))) cpSync(join(root, path), join(dest, path), { recursive: true, verbatimSymlinks: true });
}
