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
  {
    rules: {
      // `_name` marks what is left out on purpose (an omitted key in a rest destructuring, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // pay escapes and refuses control characters: matching them in a regular expression is the point.
      'no-control-regex': 'off',
      // Commands, steps and test doubles implement async interfaces (run(f, ctx): Promise<void>, page
      // generators) whether or not they await; a forgotten await is what no-floating-promises catches.
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.cjs', 'bin/**/*.js'], ...tseslint.configs.disableTypeChecked },
  // CommonJS files (the bin shim, the network spy preloaded with --require) load with require().
  { files: ['**/*.cjs', 'bin/**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['**/*.mjs', '**/*.cjs', 'bin/**/*.js'], languageOptions: { globals: globals.node } },
  {
    // Tests read untyped JSON everywhere (answers, --json output, files written by pay) and assert
    // on its shape with expect(): the no-unsafe-* family would demand a cast on every line without
    // catching anything the assertions do not. src/ keeps them all.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Test doubles hand out closures (io.stderrText, fake signals' on/off) that do not use `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
