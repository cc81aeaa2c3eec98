/**
 * A Pulumi program with one dynamic resource, driven through the Automation API by the e2e test as a
 * child process: `tsx marker-file.ts <up|destroy> <workDir> <markerPath>`. The resource writes a file on
 * create, rewrites it on update and removes it on delete, so the test can see each engine step happen.
 * It prints one JSON line with the outcome.
 */
import * as pulumi from "@pulumi/pulumi";

interface MarkerInputs {
  readonly path: string;
  readonly content: string;
}

// The provider is serialized into the state and run by the dynamic-provider plugin, a separate
// process: it reaches node:fs through that process's `require` instead of capturing a module here.
const markerProvider: pulumi.dynamic.ResourceProvider = {
  async create(inputs: MarkerInputs) {
    require("node:fs").writeFileSync(inputs.path, inputs.content);
    return { id: inputs.path, outs: inputs };
  },
  async update(_id: string, _olds: MarkerInputs, news: MarkerInputs) {
    require("node:fs").writeFileSync(news.path, news.content);
    return { outs: news };
  },
  async delete(id: string) {
    require("node:fs").rmSync(id, { force: true });
  },
};

class MarkerFile extends pulumi.dynamic.Resource {
  declare readonly content: pulumi.Output<string>;
  constructor(name: string, args: { path: pulumi.Input<string>; content: pulumi.Input<string> }) {
    super(markerProvider, name, { ...args }, {});
  }
}

async function main(): Promise<void> {
  const [action, workDir, markerPath, cliRoot] = process.argv.slice(2);
  if (!action || !workDir || !markerPath || !cliRoot)
    throw new Error("usage: marker-file.ts <up|destroy> <workDir> <markerPath> <cliRoot>");
  const pulumiCommand = await pulumi.automation.PulumiCommand.get({ root: cliRoot });
  const stack = await pulumi.automation.LocalWorkspace.createOrSelectStack(
    {
      projectName: "marker",
      stackName: "smoke",
      program: async () => {
        const marker = new MarkerFile("marker", { path: markerPath, content: "written by a dynamic provider" });
        return { content: marker.content };
      },
    },
    { workDir, pulumiCommand, projectSettings: { name: "marker", runtime: "nodejs" } },
  );
  const log: string[] = [];
  const onOutput = (line: string) => log.push(line);
  if (action === "up") {
    const result = await stack.up({ onOutput });
    process.stdout.write(
      `${JSON.stringify({ summary: result.summary.result, changes: result.summary.resourceChanges, outputs: { content: result.outputs.content?.value } })}\n`,
    );
  } else if (action === "destroy") {
    const result = await stack.destroy({ onOutput });
    process.stdout.write(
      `${JSON.stringify({ summary: result.summary.result, changes: result.summary.resourceChanges })}\n`,
    );
  } else {
    throw new Error(`unknown action ${action}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
