// ESLint, type-aware (typescript-eslint). Server code gets the recommended type-checked rules:
// no floating or misused promises, no unsafe `any`. Tests, test helpers and scripts keep the
// promise rules (a forgotten await there hides failures) but may handle untyped JSON freely.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const promiseRules = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
};

export default tseslint.config(
  { ignores: ['dist/**', '**/node_modules/**', 'apps/studio-web/dist/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.mts'] },
  {
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/*/src/testing/**'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      ...promiseRules,
      // Lifecycle hooks and interface methods are async by contract, with or without an await.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.spec.ts', 'libs/*/src/testing/**/*.ts', 'test/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: promiseRules,
  },
  {
    // The studio page's specs are not in its tsconfig.json (the page's build type-checks without
    // jest's globals); they have their own project, which the project service cannot find.
    files: ['apps/studio-web/src/**/*.spec.ts'],
    languageOptions: {
      parserOptions: { projectService: false, project: './apps/studio-web/tsconfig.spec.json', tsconfigRootDir: import.meta.dirname },
    },
  },
);
