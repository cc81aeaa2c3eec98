import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HelmCli, helmErrorSummary } from "../../lib/cluster/helm-cli.js";
import { CommandFailedError } from "../../lib/cluster/process.js";
import { stepFailureOf } from "../../lib/engine/failure.js";
import { toolchainPaths } from "../../lib/local-plane/toolchain-paths.js";
import { eventually } from "../support/cluster.js";

/** The pid of this process's child whose command line contains `marker`, if one runs. */
async function childWith(marker: string): Promise<number | undefined> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      // Field 4, after the parenthesised command name, is the parent's pid.
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent !== process.pid) continue;
      const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes(marker)) return Number(entry);
    } catch {
      // A process that ended while being read.
    }
  }
  return undefined;
}

// A helm ended by a signal (kill -9, the OOM killer) is reported as killed, naming the signal, not as a
// failure with an exit code or an output that says nothing of it. The real helm, against an apiserver
// address that accepts connections and never answers, so that helm is certain to be running when killed.
describe("a helm killed by a signal", () => {
  let server: Server;
  const sockets: Socket[] = [];
  const kubeconfig = join(tmpdir(), `navique-silent-apiserver-${process.pid}.yaml`);

  beforeAll(async () => {
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "silent", cluster: { server: `http://127.0.0.1:${port}` } }],
        users: [{ name: "silent", user: { token: "unused" } }],
        contexts: [{ name: "silent", context: { cluster: "silent", user: "silent" } }],
        "current-context": "silent",
      }),
      { mode: 0o600 },
    );
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
    await rm(kubeconfig, { force: true });
  });

  // GIVEN helm waiting on the apiserver
  // WHEN it is killed with SIGKILL
  // THEN the error says helm was killed by SIGKILL: in the command's error, in helm's summary and in the
  //      failure a reconcile step reports.
  it("is reported as killed by SIGKILL", async () => {
    const helm = new HelmCli({ binary: (await toolchainPaths()).helm, kubeconfig });
    const status = helm.status("waiting", "default").then(
      () => undefined,
      (error: unknown) => error,
    );
    const pid = await eventually("helm to run", () => childWith(kubeconfig), { intervalMs: 50 });
    // Let it reach the silent apiserver first: killed mid-request, as a helm killed mid-install.
    await eventually("helm to connect", async () => (sockets.length > 0 ? true : undefined), { intervalMs: 50 });
    process.kill(pid, "SIGKILL");
    const error = await status;

    expect(error).toBeInstanceOf(CommandFailedError);
    const failed = error as CommandFailedError;
    expect(failed.result.signal).toBe("SIGKILL");
    expect(failed.result.code).toBe(137);
    expect(failed.message.split("\n")[0]).toBe(
      `\`${helm.binary} status waiting --kubeconfig ${kubeconfig} --namespace default --output json\` was killed by SIGKILL:`,
    );
    expect(helmErrorSummary(failed)).toBe("helm was killed by SIGKILL");
    expect(stepFailureOf({ kind: "ensure-capability", description: "", capability: "cnpg" }, failed).message).toBe(
      "the install of capability cnpg failed: helm was killed by SIGKILL. It is retried with backoff; correct the cause it names",
    );
  });
});
