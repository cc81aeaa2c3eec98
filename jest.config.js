// Jest runs in native ESM mode (node --experimental-vm-modules, see docs/adr/0002-jest-and-esm.md):
// @kubernetes/client-node 2.x ships ESM only, and the project itself is ESM.

/** @type {import('jest').Config['transform']} */
const transform = {
  "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "tsconfig.json", diagnostics: false }],
};

/** Settings every project shares. */
const common = {
  extensionsToTreatAsEsm: [".ts"],
  // Sources import siblings as `./x.js` (NodeNext resolution); Jest must find `./x.ts`.
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform,
  testEnvironment: "node",
};

/** @type {import('jest').Config} */
export default {
  projects: [
    { ...common, displayName: "unit", testMatch: ["<rootDir>/test/unit/**/*.test.ts"] },
    {
      ...common,
      displayName: "cluster",
      testMatch: ["<rootDir>/test/cluster/**/*.test.ts"],
      globalSetup: "<rootDir>/test/support/global-setup.js",
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/test/e2e/**/*.test.ts"],
      globalSetup: "<rootDir>/test/support/global-setup.js",
    },
  ],
  // Cluster and e2e tests wait on real controllers and CLIs; a stuck wait fails with its own message first.
  testTimeout: 180_000,
  verbose: true,
  reporters: ["default", "<rootDir>/test/support/summary-reporter.js"],
};
