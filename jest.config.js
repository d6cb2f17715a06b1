// Unit specs sit next to the code; e2e specs live in test/ and talk to the real Postgres and
// Redis, each file in its own database cloned from a migrated template.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const moduleNameMapper = {
  '^@app/([a-z-]+)(/.*)?$': '<rootDir>/libs/$1/src$2',
  '^@apps/([a-z-]+)/(.*)$': '<rootDir>/apps/$1/src/$2',
  // The workspace packages from their sources, so tests need no build of them.
  '^@scene-studio/client$': '<rootDir>/packages/client/src',
  '^@scene-studio/world-engine(/scene-spec)?$': '<rootDir>/packages/world-engine/src$1',
  // The camera-path format, shared by the studio server and the studio page (packages/camera-path).
  '^@scene-studio/camera-path$': '<rootDir>/packages/camera-path/src',
  // three's CommonJS build only re-exports its ES module: compile that instead (transform below).
  '^three$': '<rootDir>/node_modules/three/build/three.module.js',
};

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // Dependencies that ship only ES modules (property-graph under @gltf-transform/core, three),
  // which jest's CommonJS runtime cannot require on Node 20 (Node itself can): let swc compile
  // them like our own code, so the camera rig and its inputs run in unit specs.
  transform: { '^.+\\.(ts|mjs|js)$': swc },
  transformIgnorePatterns: ['/node_modules/(?!property-graph/|three/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  moduleNameMapper,
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

module.exports = {
  // A global option: jest ignores it inside projects.
  testTimeout: 60_000,
  // The e2e files mostly wait on PostgreSQL, Redis, Chromium and child processes, so on two
  // cores three workers keep both cores busy: each file has its own database and queue prefix and
  // takes ports from the OS (docs/testing.md: what a test may share). Measured on this 2-core
  // machine: one worker 2 200 s, three 730–810 s, four (with two browsers at once) 740 s and
  // timing failures, the cores saturated. SS_TEST_WORKERS overrides it.
  maxWorkers: Number(process.env.SS_TEST_WORKERS ?? 3),
  // The slowest files first (test/jest/durations.json), so no long file starts at the end.
  testSequencer: '<rootDir>/test/jest/slowest-first-sequencer.js',
  // The ten slowest files and the time per project, after every run.
  reporters: ['default', '<rootDir>/test/jest/timing-reporter.js'],
  // With one worker (SS_TEST_WORKERS=1) jest would run every file in its own process ("in
  // band"), where what each file leaves behind (modules, Nest apps' closures) adds up until the
  // heap runs out near the end of the suite (CI: exit 134). A memory limit makes jest use a
  // worker process even then, and replace it after any file that leaves it above the limit.
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,packages}/**/*.spec.ts'] },
    {
      // Domain services wired as in the api, on a cloned database, without HTTP (test/service).
      ...common,
      displayName: 'service',
      // Drops the file's databases after all of its hooks (test/jest/file-environment.js).
      testEnvironment: '<rootDir>/test/jest/file-environment.js',
      // Packages evaluated once per worker, not once per file (test/jest/shared-modules-runtime.js).
      runtime: '<rootDir>/test/jest/shared-modules-runtime.js',
      testMatch: ['<rootDir>/test/service/**/*.service-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testEnvironment: '<rootDir>/test/jest/file-environment.js',
      runtime: '<rootDir>/test/jest/shared-modules-runtime.js',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
  ],
};
