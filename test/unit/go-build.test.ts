import { join } from "node:path";
import { recipeDirectory, wrapperGoMod } from "../../lib/local-plane/go-build.js";
import { HELM, KUBERNETES, PULUMI, PULUMI_KUBERNETES, TOOLCHAIN } from "../../lib/local-plane/toolchain.js";

describe("the wrapper module of a recipe", () => {
  it("replaces every Kubernetes staging module with its published v0 version", () => {
    const goMod = wrapperGoMod(KUBERNETES, "1.26.0");
    expect(goMod).toContain("require (\n\tk8s.io/kubernetes v1.36.3\n)");
    expect(goMod).toContain("\tk8s.io/client-go => k8s.io/client-go v0.36.3\n");
    expect(goMod).toContain("\tk8s.io/apiserver => k8s.io/apiserver v0.36.3\n");
    expect(goMod).toContain("godebug default=go1.26");
    expect(goMod).toContain(
      "tool (\n\tk8s.io/kubernetes/cmd/kube-apiserver\n\tk8s.io/kubernetes/cmd/kube-controller-manager\n",
    );
  });

  it("repeats pulumi's clipboard replacement and stamps the CLI version", () => {
    expect(wrapperGoMod(PULUMI, "1.26.0")).toContain(
      "github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e",
    );
    expect(PULUMI.ldflags).toContain("-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v3.274.1");
  });

  it("builds the Kubernetes plugin's main from a copy in the wrapper module, not as a tool, at the release's SDK", () => {
    const goMod = wrapperGoMod(PULUMI_KUBERNETES, "1.26.0");
    expect(goMod).toContain("module navique.local/toolchain/pulumi-resource-kubernetes\n");
    expect(goMod).toContain(
      "require (\n\tgithub.com/pulumi/pulumi-kubernetes/provider/v4 v4.0.0-20260115033456-f47bc2d6f199\n\tgithub.com/pulumi/pulumi-kubernetes/sdk/v4 v4.25.0\n)",
    );
    expect(goMod).not.toContain("tool (");
    expect(PULUMI_KUBERNETES.binaries[0]?.pkg).toBe(
      `navique.local/toolchain/pulumi-resource-kubernetes/${PULUMI_KUBERNETES.copiedMain?.dir}`,
    );
    expect(PULUMI_KUBERNETES.ldflags).toContain(
      "-X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=4.25.0",
    );
  });

  it("stamps the Kubernetes version for both version packages, so /version reports it", () => {
    for (const pkg of ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]) {
      expect(KUBERNETES.ldflags).toEqual(
        expect.arrayContaining([`-X ${pkg}.gitVersion=v1.36.3`, `-X ${pkg}.gitMajor=1`, `-X ${pkg}.gitMinor=36`]),
      );
    }
    expect(HELM.ldflags).toContain("-X helm.sh/helm/v4/internal/version.version=v4.3.1");
  });
});

describe("the cache directory of a recipe", () => {
  const env = { NAVIQUE_CACHE_DIR: "/cache" };

  it("is keyed by name, version and a digest of the recipe", () => {
    expect(recipeDirectory(HELM, env)).toMatch(/^\/cache\/toolchain\/helm-v4\.3\.1-[0-9a-f]{10}$/);
  });

  it("changes when anything that shapes the binaries changes", () => {
    const edited = { ...HELM, ldflags: [...HELM.ldflags, "-X extra=1"] };
    expect(recipeDirectory(edited, env)).not.toBe(recipeDirectory(HELM, env));
    expect(recipeDirectory({ ...HELM }, env)).toBe(recipeDirectory(HELM, env));
  });

  it("differs for every tool of the toolchain", () => {
    const dirs = new Set(TOOLCHAIN.map((recipe) => recipeDirectory(recipe, env)));
    expect(dirs.size).toBe(TOOLCHAIN.length);
    expect([...dirs].every((dir) => dir.startsWith(join("/cache", "toolchain")))).toBe(true);
  });
});
