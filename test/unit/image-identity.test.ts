import { imageRepository, matchesUpstreamImage, parseImageRepository } from "../../lib/catalog/image-identity.js";

const CNPG = "ghcr.io/cloudnative-pg/cloudnative-pg";
const CERT_MANAGER = "quay.io/jetstack/cert-manager-controller";
const NGINX = "docker.io/library/nginx";

describe("controller identity by image", () => {
  it.each([
    ["ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0", { host: "ghcr.io", path: "cloudnative-pg/cloudnative-pg" }],
    [
      "registry.local:5000/ghcr.io/cloudnative-pg/cloudnative-pg",
      { host: "registry.local:5000", path: "ghcr.io/cloudnative-pg/cloudnative-pg" },
    ],
    ["localhost/cnpg/operator@sha256:abc", { host: "localhost", path: "cnpg/operator" }],
    ["nginx:1.27", { host: "docker.io", path: "library/nginx" }],
    ["bitnami/postgresql", { host: "docker.io", path: "bitnami/postgresql" }],
  ])("parses %s", (image, expected) => {
    expect(parseImageRepository(image)).toEqual(expected);
  });

  it("names a repository with its registry host", () => {
    expect(imageRepository("nginx")).toBe("docker.io/library/nginx");
    expect(imageRepository("quay.io/jetstack/cert-manager-controller:v1.21.1")).toBe(CERT_MANAGER);
  });

  it.each([
    // The upstream registry itself, with a tag, a digest or both.
    ["ghcr.io/cloudnative-pg/cloudnative-pg:1.30.0", CNPG, true],
    ["ghcr.io/cloudnative-pg/cloudnative-pg@sha256:0123", CNPG, true],
    // Mirrors: another host with the same path, or a proxy that keeps the upstream host as a prefix.
    ["mirror.example.com/cloudnative-pg/cloudnative-pg:1.30.0", CNPG, true],
    ["registry.local:5000/ghcr.io/cloudnative-pg/cloudnative-pg", CNPG, true],
    ["harbor.corp/proxy-ghcr/cloudnative-pg/cloudnative-pg:1.30.0", CNPG, true],
    ["artifactory.corp:8443/quay.io/jetstack/cert-manager-controller:v1.21.1", CERT_MANAGER, true],
    // Only the last segment, or a segment that merely ends like the upstream one: another project.
    ["mirror.example.com/cloudnative-pg:1.30.0", CNPG, false],
    ["mirror.example.com/xcloudnative-pg/cloudnative-pg", CNPG, false],
    ["ghcr.io/cloudnative-pg/cloudnative-pg-extras", CNPG, false],
    ["quay.io/jetstack/cert-manager-webhook:v1.21.1", CERT_MANAGER, false],
    // Docker Hub official images: the implicit library/ may be kept or dropped by a mirror, as the whole path.
    ["nginx:1.27", NGINX, true],
    ["mirror.local/library/nginx", NGINX, true],
    ["mirror.local/nginx", NGINX, true],
    ["someone/nginx", NGINX, false],
    ["mirror.local/someone/nginx", NGINX, false],
  ])("%s is %s: %s", (image, upstream, expected) => {
    expect(matchesUpstreamImage(image, upstream)).toBe(expected);
  });
});
