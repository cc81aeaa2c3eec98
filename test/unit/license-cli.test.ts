import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runUnchecked } from "../../lib/cluster/process.js";

const TSX = join(process.cwd(), "node_modules", ".bin", "tsx");
const CLI = join(process.cwd(), "lib", "cli", "main.ts");

// The vendor and user tooling, run as the `navique` command in its own process.
describe("navique license", () => {
  let dir: string;
  const navique = (...args: string[]) => runUnchecked(TSX, [CLI, "license", ...args]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "navique-license-cli-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("keygen, sign, verify and inspect a licence; distinct errors for each refusal", async () => {
    const keygen = await navique("keygen", "--out", dir, "--key-id", "vendor-test");
    expect(keygen.code).toBe(0);
    expect((await stat(join(dir, "vendor-test.private.pem"))).mode & 0o777).toBe(0o600);
    const again = await navique("keygen", "--out", dir, "--key-id", "vendor-test");
    expect(again.stderr).toContain("exists: refusing to overwrite a private key");

    const payload = {
      licenseId: "lic-cli",
      licensee: "Example AG",
      issuedAt: "2027-01-01T00:00:00Z",
      notBefore: "2027-01-01T00:00:00Z",
      expiresAt: "2027-03-02T00:00:00Z",
      features: ["stack"],
      caps: { Gateway: 3, Stack: 1 },
    };
    await writeFile(join(dir, "payload.json"), JSON.stringify(payload));
    const signed = await navique(
      "sign",
      "--key",
      join(dir, "vendor-test.private.pem"),
      "--key-id",
      "vendor-test",
      "--payload",
      join(dir, "payload.json"),
    );
    expect(signed.code).toBe(0);
    const token = signed.stdout.trim();
    expect(token).toMatch(/^nvq1\.vendor-test\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    const trust = ["--trust", `vendor-test=${join(dir, "vendor-test.public.pem")}`];
    const valid = await navique("verify", "--token", token, ...trust, "--now", "2027-01-31T00:00:00Z");
    expect(valid).toMatchObject({
      code: 0,
      stdout: "valid: licence lic-cli for Example AG, signed with key vendor-test, expires 2027-03-02T00:00:00Z\n",
    });

    const inspect = await navique("inspect", "--token", token, ...trust, "--now", "2027-01-31T00:00:00Z");
    expect(inspect.stdout).toContain(
      "edition: Licensed — licence lic-cli, expires 2027-03-02T00:00:00.000Z (30 days left)",
    );
    expect(inspect.stdout).toContain("features: stack");
    expect(inspect.stdout).toMatch(/Gateway\s+3/);

    const untrusted = await navique("verify", "--token", token, "--now", "2027-01-31T00:00:00Z");
    expect(untrusted.code).toBe(11);
    expect(untrusted.stderr).toContain('licence refused (unknown-key): the licence is signed with key "vendor-test"');

    const tampered = `${token.slice(0, -2)}${token.endsWith("AA") ? "BA" : "AA"}`;
    expect(
      (await navique("verify", "--token", tampered, ...trust, "--now", "2027-01-31T00:00:00Z")).code,
    ).toBeGreaterThanOrEqual(10);
    expect(await navique("verify", "--token", "garbage", ...trust)).toMatchObject({ code: 10 });
    expect(await navique("verify", "--token", token, ...trust, "--now", "2026-12-01T00:00:00Z")).toMatchObject({
      code: 16,
    });
    const expired = await navique("verify", "--token", token, ...trust, "--now", "2027-04-01T00:00:00Z");
    expect(expired.code).toBe(17);
    expect(expired.stderr).toContain("licence refused (expired): licence lic-cli expired at 2027-03-02T00:00:00Z");
    const community = await navique("inspect", "--token", token, ...trust, "--now", "2027-04-01T00:00:00Z");
    expect(community.stdout).toContain("edition: Community (the licence does not apply: expired:");

    await writeFile(join(dir, "wild.json"), JSON.stringify({ ...payload, features: ["everything"] }));
    const wild = await navique(
      "sign",
      "--key",
      join(dir, "vendor-test.private.pem"),
      "--key-id",
      "vendor-test",
      "--payload",
      join(dir, "wild.json"),
    );
    expect(wild.code).toBe(14);
    expect(wild.stderr).toContain('unknown feature(s) "everything"');
  });
});
