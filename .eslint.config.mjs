// ESLint (flat config) for `npm run lint`. A dotfile because the top level holds only the product's
// own folders and files; `npm run lint` passes it with --config (editors: point ESLint's
// overrideConfigFile at it). Type-checked rules from typescript-eslint; formatting is Prettier's
// (eslint-config-prettier turns off the rules that would fight it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'completions/', 'coverage/', 'test/.tmp/', '.pay-demo/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  { files: ['**/*.mjs', '**/*.cjs', 'bin/**/*.js'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.mjs', '**/*.cjs', 'bin/**/*.js'], languageOptions: { globals: globals.node } },
  prettier,
);
