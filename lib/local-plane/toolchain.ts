/**
 * The pinned toolchain of the local control plane: every binary the tests and the main command run,
 * each built from the Go module proxy. This file is the one place where their versions live.
 *
 * Each tool is described as a small Go wrapper module (module path, requirements, replacements,
 * `tool` directives): some upstream modules carry `replace` directives that forbid a plain
 * `go install pkg@version`, and a wrapper module whose own `replace` lines point at published
 * versions is the supported way around that.
 */

export const KUBERNETES_VERSION = "v1.36.3";
export const ETCD_VERSION = "v3.6.16";
export const KWOK_VERSION = "v0.8.0";
export const HELM_VERSION = "v4.3.1";
export const PULUMI_VERSION = "v3.274.1";
/**
 * The Node.js language host lives, since pulumi 3.69, in a module of its own that is never tagged, so the
 * module proxy serves no version of it. v3.68.0 is the last release of sdk/v3 that still contains it;
 * its protocol with the engine and with `@pulumi/pulumi/cmd/run` still works with the CLI above (the e2e
 * tests run TypeScript programs from a project directory through it).
 */
export const PULUMI_LANGUAGE_NODEJS_VERSION = "v3.68.0";
/**
 * The Kubernetes resource plugin, for programs that pass a `@pulumi/kubernetes` Provider to the
 * product's components. pulumi-kubernetes tags its SDK but not its provider module, so the module proxy
 * serves the provider only as a pseudo-version: this one is the commit of the v4.25.0 release (the
 * provider's go.mod at it requires sdk/v4 v4.24.0 and replaces it with ../sdk; sdk/v4 v4.25.0 is the
 * same commit's SDK, published). The tests' Pulumi home holds it in its plugin cache; the repository's
 * devDependency @pulumi/kubernetes is pinned at the same version, so that the SDK asks for this one
 * (docs/adr/0021-kubernetes-plugin-in-the-toolchain.md).
 */
export const PULUMI_KUBERNETES_VERSION = "4.25.0";
const PULUMI_KUBERNETES_PROVIDER_MODULE = "github.com/pulumi/pulumi-kubernetes/provider/v4";
const PULUMI_KUBERNETES_PROVIDER_COMMIT = "v4.0.0-20260115033456-f47bc2d6f199";

/** The Go toolchain these recipes were verified with; older ones may refuse the `go` lines below. */
export const GO_LANGUAGE_VERSION = "1.26.0";

/**
 * Kubernetes publishes each staging module (k8s.io/api, k8s.io/client-go, …) as its own module at
 * `v0.<minor>.<patch>`; `k8s.io/kubernetes` replaces them with `./staging/…`, which a dependent module
 * cannot see. The list is the set of `=> ./staging` replacements in the go.mod of
 * k8s.io/kubernetes at KUBERNETES_VERSION.
 */
const KUBERNETES_STAGING_MODULES = [
  "api",
  "apiextensions-apiserver",
  "apimachinery",
  "apiserver",
  "cli-runtime",
  "client-go",
  "cloud-provider",
  "cluster-bootstrap",
  "code-generator",
  "component-base",
  "component-helpers",
  "controller-manager",
  "cri-api",
  "cri-client",
  "cri-streaming",
  "csi-translation-lib",
  "dynamic-resource-allocation",
  "endpointslice",
  "externaljwt",
  "kms",
  "kube-aggregator",
  "kube-controller-manager",
  "kube-proxy",
  "kube-scheduler",
  "kubectl",
  "kubelet",
  "metrics",
  "mount-utils",
  "pod-security-admission",
  "sample-apiserver",
  "sample-cli-plugin",
  "sample-controller",
  "streaming",
] as const;

export interface GoBinary {
  readonly binary: string;
  readonly pkg: string;
}

export interface GoToolRecipe {
  /** Short name, used in the cache key and in progress output. */
  readonly name: string;
  readonly version: string;
  /** `module path version` requirements of the wrapper module. */
  readonly require: readonly (readonly [string, string])[];
  /** `old => new version` replacements of the wrapper module. */
  readonly replace: readonly (readonly [string, string, string])[];
  /** Main packages to build, each into the binary named beside it. */
  readonly binaries: readonly GoBinary[];
  readonly tags: readonly string[];
  readonly ldflags: readonly string[];
  /** A `godebug` line for the wrapper module, when the upstream module relies on one. */
  readonly godebug?: string;
  readonly cgo: boolean;
  /** Data files to copy out of a required module into the cache directory's `assets/`. */
  readonly assets?: { readonly module: string; readonly files: readonly string[] };
  /**
   * A main package compiled from a copy inside the wrapper module (at `dir` of it, which a binary's
   * `pkg` then names), for an upstream main that `go:embed`s files its repository generates before it
   * builds. `sources` are copied from `from` of `module`; each of `generated` is a JSON file of that
   * directory written compacted under another name, with its `version` set where the generator sets one.
   */
  readonly copiedMain?: CopiedMain;
}

export interface CopiedMain {
  readonly module: string;
  readonly from: string;
  readonly dir: string;
  readonly sources: readonly string[];
  readonly generated: readonly { readonly from: string; readonly to: string; readonly version?: string }[];
}

function stampKubernetesVersion(version: string): string[] {
  const [major, minor] = version.replace(/^v/, "").split(".");
  const flags: string[] = [];
  for (const pkg of ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]) {
    flags.push(
      `-X ${pkg}.gitVersion=${version}`,
      `-X ${pkg}.gitMajor=${major}`,
      `-X ${pkg}.gitMinor=${minor}`,
      `-X ${pkg}.gitTreeState=clean`,
    );
  }
  return flags;
}

const stagingVersion = KUBERNETES_VERSION.replace(/^v1\./, "v0.");

export const KUBERNETES: GoToolRecipe = {
  name: "kubernetes",
  version: KUBERNETES_VERSION,
  require: [["k8s.io/kubernetes", KUBERNETES_VERSION]],
  replace: KUBERNETES_STAGING_MODULES.map((m) => [`k8s.io/${m}`, `k8s.io/${m}`, stagingVersion] as const),
  binaries: ["kube-apiserver", "kube-controller-manager", "kube-scheduler"].map((binary) => ({
    binary,
    pkg: `k8s.io/kubernetes/cmd/${binary}`,
  })),
  tags: ["selinux", "notest"],
  ldflags: ["-s", "-w", ...stampKubernetesVersion(KUBERNETES_VERSION)],
  godebug: "default=go1.26",
  cgo: false,
};

export const ETCD: GoToolRecipe = {
  name: "etcd",
  version: ETCD_VERSION,
  require: [["go.etcd.io/etcd/server/v3", ETCD_VERSION]],
  replace: [],
  binaries: [{ binary: "etcd", pkg: "go.etcd.io/etcd/server/v3" }],
  tags: [],
  ldflags: ["-s", "-w"],
  cgo: false,
};

export const KWOK: GoToolRecipe = {
  name: "kwok",
  version: KWOK_VERSION,
  require: [["sigs.k8s.io/kwok", KWOK_VERSION]],
  replace: [],
  binaries: [{ binary: "kwok", pkg: "sigs.k8s.io/kwok/cmd/kwok" }],
  tags: [],
  ldflags: ["-s", "-w"],
  cgo: false,
  // The Stage documents that make kwok behave like a fast kubelet: nodes initialise and heartbeat
  // through Leases, pods become Ready at once, complete, and go away when deleted.
  assets: {
    module: "sigs.k8s.io/kwok",
    files: [
      "kustomize/stage/node/fast/node-initialize.yaml",
      "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
      "kustomize/stage/pod/fast/pod-ready.yaml",
      "kustomize/stage/pod/fast/pod-complete.yaml",
      "kustomize/stage/pod/fast/pod-delete.yaml",
    ],
  },
};

export const HELM: GoToolRecipe = {
  name: "helm",
  version: HELM_VERSION,
  require: [["helm.sh/helm/v4", HELM_VERSION]],
  replace: [],
  binaries: [{ binary: "helm", pkg: "helm.sh/helm/v4/cmd/helm" }],
  tags: [],
  // Without the stamp `helm version` reports a bare "v4.x" and chart kubeVersion checks misbehave.
  ldflags: ["-s", "-w", `-X helm.sh/helm/v4/internal/version.version=${HELM_VERSION}`],
  cgo: false,
};

export const PULUMI: GoToolRecipe = {
  name: "pulumi",
  version: PULUMI_VERSION,
  require: [
    ["github.com/pulumi/pulumi/pkg/v3", PULUMI_VERSION],
    ["github.com/pulumi/pulumi/sdk/v3", PULUMI_VERSION],
  ],
  // pkg/v3 replaces the clipboard module with a fork; a dependent module must repeat the replacement.
  replace: [["github.com/atotto/clipboard", "github.com/tgummerer/clipboard", "v0.0.0-20241001131231-d02d263e614e"]],
  binaries: [{ binary: "pulumi", pkg: "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi" }],
  tags: ["osusergo", "grpcnotrace"],
  // The Automation API refuses a CLI that reports no version.
  ldflags: ["-s", "-w", `-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${PULUMI_VERSION}`],
  cgo: false,
};

export const PULUMI_LANGUAGE_NODEJS: GoToolRecipe = {
  name: "pulumi-language-nodejs",
  version: PULUMI_LANGUAGE_NODEJS_VERSION,
  require: [["github.com/pulumi/pulumi/sdk/v3", PULUMI_LANGUAGE_NODEJS_VERSION]],
  replace: [],
  binaries: [
    { binary: "pulumi-language-nodejs", pkg: "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs" },
  ],
  tags: [],
  ldflags: [
    "-s",
    "-w",
    `-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${PULUMI_LANGUAGE_NODEJS_VERSION}`,
  ],
  cgo: false,
};

export const PULUMI_KUBERNETES: GoToolRecipe = {
  name: "pulumi-resource-kubernetes",
  version: PULUMI_KUBERNETES_VERSION,
  require: [
    [PULUMI_KUBERNETES_PROVIDER_MODULE, PULUMI_KUBERNETES_PROVIDER_COMMIT],
    ["github.com/pulumi/pulumi-kubernetes/sdk/v4", `v${PULUMI_KUBERNETES_VERSION}`],
  ],
  replace: [],
  binaries: [
    { binary: "pulumi-resource-kubernetes", pkg: "navique.local/toolchain/pulumi-resource-kubernetes/cmd/provider" },
  ],
  tags: [],
  ldflags: ["-s", "-w", `-X ${PULUMI_KUBERNETES_PROVIDER_MODULE}/pkg/version.Version=${PULUMI_KUBERNETES_VERSION}`],
  cgo: false,
  // What the repository's `go generate` (cmd/pulumi-resource-kubernetes/generate.go) does: the schema
  // with the release's version, and the Terraform mapping, both compacted beside main.go.
  copiedMain: {
    module: PULUMI_KUBERNETES_PROVIDER_MODULE,
    from: "cmd/pulumi-resource-kubernetes",
    dir: "cmd/provider",
    sources: ["main.go"],
    generated: [
      { from: "schema.json", to: "schema-embed.json", version: PULUMI_KUBERNETES_VERSION },
      { from: "terraform-mapping.json", to: "terraform-mapping-embed.json" },
    ],
  },
};

/** Every tool, in the order a cold build makes them (the control plane first, pulumi last). */
export const TOOLCHAIN: readonly GoToolRecipe[] = [
  ETCD,
  KUBERNETES,
  KWOK,
  HELM,
  PULUMI,
  PULUMI_LANGUAGE_NODEJS,
  PULUMI_KUBERNETES,
];
