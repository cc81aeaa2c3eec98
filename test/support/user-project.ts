/** What a user's project installs beside the package: the front ends' own packages and the compiler. */
export const USER_DEPENDENCIES = ["@pulumi/pulumi", "cdk8s", "constructs", "cdk8s-cli", "typescript", "@types/node"];

/**
 * A user's project, file by file: a TypeScript Pulumi program and a cdk8s app in one project, compiled by
 * tsc, for installed-package.test.ts. The README's own projects are run as written by
 * readme-projects.test.ts.
 */
export const USER_PROJECT_FILES: Readonly<Record<string, string>> = {
  "tsconfig.json": `${JSON.stringify(
    {
      compilerOptions: {
        target: "ES2023",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        outDir: "bin",
      },
      include: ["*.ts"],
    },
    null,
    2,
  )}\n`,
  "Pulumi.yaml": [
    "name: user-project",
    "runtime:",
    "  name: nodejs",
    "  options:",
    "    typescript: false",
    "main: bin/index.js",
    "",
  ].join("\n"),
  "index.ts": `import * as pulumi from "@pulumi/pulumi";
import { PostgresCluster } from "@navique/ai-core/pulumi";

const config = new pulumi.Config();
const db = new PostgresCluster("app-db", {
  namespace: config.require("namespace"),
  spec: { mode: "external", external: { connectionSecretRef: { name: "app-db-connection" } } },
});
// One component's outputs feed another's args: a reporting database on the same server, reached
// through the Secret the first one names.
const reporting = new PostgresCluster("reporting-db", {
  namespace: db.credentialsSecret.namespace,
  spec: { mode: "external", external: { connectionSecretRef: { name: db.credentialsSecret.name } } },
});
export const host = db.host;
export const password = db.password;
export const reportingHost = reporting.host;
`,
  "cdk8s.yaml": "language: typescript\napp: node bin/main.js\n",
  "main.ts": `import { App, Chart } from "cdk8s";
import { PostgresCluster } from "@navique/ai-core/cdk8s";

const app = new App();
const chart = new Chart(app, "platform");
new PostgresCluster(chart, "app-db", {
  namespace: "apps",
  spec: { databases: [{ name: "app" }] },
});
app.synth();
`,
};
