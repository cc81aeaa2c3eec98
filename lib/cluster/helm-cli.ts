import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { CommandFailedError, run, runUnchecked } from "./process.js";

export interface HelmCliOptions {
  /**
   * Path of the helm v4 binary, or what finds it when helm first runs: a resource that never needs helm
   * then never fails for want of one.
   */
  readonly binary: string | (() => string);
  readonly kubeconfig: string;
  /**
   * Directory for helm's cache, config and data, so that the product never reads or writes the user's
   * repositories and plugins. @default helm's own defaults
   */
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export interface HelmInstallOptions {
  readonly namespace: string;
  /** @default false */
  readonly createNamespace?: boolean;
  /** Labels stored on the release record (the release Secret), e.g. ownership marks. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Chart values; written to a private temporary file, never put on the command line. */
  readonly values?: Readonly<Record<string, unknown>>;
  /** Chart version when the chart comes from a repository or a registry. */
  readonly version?: string;
  /** Repository URL for a chart given by name (`helm install --repo`). */
  readonly repo?: string;
  /**
   * Adopt EVERY existing object the chart renders, whoever owns it (`--take-ownership`). The product
   * passes it to dry runs only (docs/adr/0011-capability-install-ownership.md). @default false
   */
  readonly takeOwnership?: boolean;
  /** Override other field managers on conflicting fields (`--force-conflicts`). @default false */
  readonly forceConflicts?: boolean;
  /**
   * Simulate on the server (`--dry-run=server`): helm renders against the cluster and checks the
   * ownership of existing objects, writes no release record (no revision) and applies nothing; it does
   * NOT send the objects to the apiserver, so the apiserver's own refusals are not seen. @default false
   */
  readonly dryRun?: boolean;
  /** With `upgrade`: install the release when there is none (`--install`). @default false */
  readonly install?: boolean;
  /** Release revisions helm keeps. @default 5 */
  readonly historyMax?: number;
  /** Wait until the release's resources are ready. @default true */
  readonly wait?: boolean;
  /** @default 300 */
  readonly timeoutSeconds?: number;
}

/** What `helm status -o json` tells about a release; only the fields the product reads. */
export interface HelmReleaseInfo {
  readonly name: string;
  readonly namespace: string;
  readonly version: number;
  readonly info: { readonly status: string; readonly description?: string };
  readonly chart?: {
    readonly metadata?: { readonly name?: string; readonly version?: string; readonly appVersion?: string };
  };
}

function chartArgs(options: HelmInstallOptions): string[] {
  const args: string[] = [];
  if (options.version) args.push("--version", options.version);
  if (options.repo) args.push("--repo", options.repo);
  return args;
}

/** The flags of an install or upgrade beyond chart and values: dry run, ownership, history, wait, labels. */
function operationFlags(verb: "install" | "upgrade", options: HelmInstallOptions): string[] {
  const args: string[] = [];
  if (options.dryRun) {
    // helm v4 spells it --dry-run=server: rendered against the cluster (lookups, capabilities,
    // ownership of existing objects), no release record written, nothing applied.
    args.push("--dry-run=server");
  } else if (options.createNamespace) {
    args.push("--create-namespace");
  }
  if (verb === "upgrade" && options.install) args.push("--install");
  if (options.takeOwnership) args.push("--take-ownership");
  if (options.forceConflicts) args.push("--force-conflicts");
  // helm keeps every revision unless told otherwise; only upgrade takes the bound.
  if (verb === "upgrade") args.push("--history-max", String(options.historyMax ?? 5));
  if ((options.wait ?? true) && !options.dryRun) args.push("--wait", "--timeout", `${options.timeoutSeconds ?? 300}s`);
  const labels = Object.entries(options.labels ?? {});
  if (labels.length > 0) args.push("--labels", labels.map(([k, v]) => `${k}=${v}`).join(","));
  return args;
}

/** The one module through which the product runs helm (see docs/adr/0003-helm-cli.md). */
export class HelmCli {
  private resolved: string | undefined;

  constructor(readonly options: HelmCliOptions) {}

  /** The helm binary, found on first use when the options name a function. */
  get binary(): string {
    const { binary } = this.options;
    this.resolved ??= typeof binary === "function" ? binary() : binary;
    return this.resolved;
  }

  private env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) };
    if (this.options.home) {
      env.HELM_CACHE_HOME = join(this.options.home, "cache");
      env.HELM_CONFIG_HOME = join(this.options.home, "config");
      env.HELM_DATA_HOME = join(this.options.home, "data");
    }
    return env;
  }

  private common(namespace: string): string[] {
    return ["--kubeconfig", this.options.kubeconfig, "--namespace", namespace];
  }

  async version(): Promise<string> {
    const result = await run(this.binary, ["version", "--template", "{{.Version}}"], { env: this.env() });
    return result.stdout.trim();
  }

  /** `helm install`; fails if the release exists. */
  install(release: string, chart: string, options: HelmInstallOptions): Promise<HelmReleaseInfo> {
    return this.installOrUpgrade("install", release, chart, options);
  }

  /** `helm upgrade` of an existing release. */
  upgrade(release: string, chart: string, options: HelmInstallOptions): Promise<HelmReleaseInfo> {
    return this.installOrUpgrade("upgrade", release, chart, options);
  }

  private async installOrUpgrade(
    verb: "install" | "upgrade",
    release: string,
    chart: string,
    options: HelmInstallOptions,
  ): Promise<HelmReleaseInfo> {
    return this.withValues(options, async (valueArgs) => {
      const args = [verb, release, chart, ...this.common(options.namespace), "--output", "json"];
      args.push(...chartArgs(options), ...valueArgs);
      args.push(...operationFlags(verb, options));
      const result = await run(this.binary, args, { env: this.env() });
      return JSON.parse(result.stdout) as HelmReleaseInfo;
    });
  }

  /**
   * `helm template`: the chart's manifests as an install of `release` with these values and version
   * would render them, without the cluster (no lookups) and without the `crds/` directory, whose CRDs
   * helm creates only when missing and never takes over. Hooks are included.
   */
  async template(release: string, chart: string, options: HelmInstallOptions): Promise<string> {
    return this.withValues(options, async (valueArgs) => {
      const args = ["template", release, chart, "--namespace", options.namespace, ...chartArgs(options), ...valueArgs];
      return (await run(this.binary, args, { env: this.env() })).stdout;
    });
  }

  /** Runs `action` with `--values <private file>` arguments for the options' values (none without values). */
  private async withValues<T>(options: HelmInstallOptions, action: (args: string[]) => Promise<T>): Promise<T> {
    if (!options.values) return action([]);
    const scratch = await mkdtemp(join(tmpdir(), "navique-helm-"));
    try {
      const valuesFile = join(scratch, "values.yaml");
      await writeFile(valuesFile, stringify(options.values), { mode: 0o600 });
      return await action(["--values", valuesFile]);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /** `helm uninstall`; resolves quietly when the release does not exist (an uninstall is idempotent). */
  async uninstall(release: string, namespace: string, options: { readonly wait?: boolean } = {}): Promise<boolean> {
    const args = ["uninstall", release, ...this.common(namespace)];
    if (options.wait ?? true) args.push("--wait");
    const result = await runUnchecked(this.binary, args, { env: this.env() });
    if (result.code === 0) return true;
    if (/not found/i.test(result.stderr)) return false;
    throw new CommandFailedError(`${this.binary} ${args.join(" ")}`, result);
  }

  /**
   * `helm rollback` to `revision`: the way out of a release left pending by an upgrade or a rollback that
   * died (helm refuses to upgrade a pending release, but rolls it back).
   */
  async rollback(release: string, namespace: string, revision: number): Promise<void> {
    const args = ["rollback", release, String(revision), ...this.common(namespace)];
    const result = await runUnchecked(this.binary, args, { env: this.env() });
    if (result.code !== 0) throw new CommandFailedError(`${this.binary} ${args.join(" ")}`, result);
  }

  /** The release's status, or undefined when there is no such release. */
  async status(release: string, namespace: string): Promise<HelmReleaseInfo | undefined> {
    const args = ["status", release, ...this.common(namespace), "--output", "json"];
    const result = await runUnchecked(this.binary, args, { env: this.env() });
    if (result.code !== 0) {
      if (/not found/i.test(result.stderr)) return undefined;
      throw new CommandFailedError(`${this.binary} ${args.join(" ")}`, result);
    }
    return JSON.parse(result.stdout) as HelmReleaseInfo;
  }
}

/**
 * One line of what helm said went wrong: its last `Error:` line (helm prints the cause there, after
 * any warnings), without the prefix, cut at 400 characters. Never the command line, which names the
 * values file, nor the rest of stderr. A helm ended by a signal is `helm was killed by SIGKILL`: what it
 * printed before is no cause.
 */
export function helmErrorSummary(error: unknown): string {
  if (!(error instanceof CommandFailedError))
    return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
  if (error.result.signal) return `helm was killed by ${error.result.signal}`;
  const lines = (error.result.stderr || error.result.stdout).trim().split("\n");
  const errorLine = [...lines].reverse().find((line) => line.startsWith("Error:")) ?? lines[lines.length - 1] ?? "";
  const summary = errorLine.replace(/^Error:\s*/, "").trim();
  return summary.length > 400 ? `${summary.slice(0, 399)}…` : summary || `helm exited with code ${error.result.code}`;
}
