import { engineAddressOf } from "../../providers/pulumi/provider-progress.js";

describe("the engine's address in the dynamic provider's process", () => {
  it("is the first argument of Pulumi's dynamic-provider host, however the plugin script names it", () => {
    const host = "/home/u/app/node_modules/@pulumi/pulumi/cmd/dynamic-provider";
    expect(engineAddressOf(["/usr/bin/node", host, "127.0.0.1:41235"])).toBe("127.0.0.1:41235");
    expect(engineAddressOf(["/usr/bin/node", `${host}/index.js`, "127.0.0.1:41235", "extra"])).toBe("127.0.0.1:41235");
    expect(
      engineAddressOf([
        "node",
        "C:\\app\\node_modules\\@pulumi\\pulumi\\cmd\\dynamic-provider\\index.js",
        "localhost:9",
      ]),
    ).toBe("localhost:9");
  });

  it("is nothing in any other process: the provider's code called in-process logs nowhere", () => {
    expect(
      engineAddressOf(["/usr/bin/node", "/repo/node_modules/jest/bin/jest.js", "127.0.0.1:41235"]),
    ).toBeUndefined();
    expect(engineAddressOf(["/usr/bin/node", "/app/node_modules/@pulumi/pulumi/cmd/dynamic-provider"])).toBeUndefined();
    expect(
      engineAddressOf(["/usr/bin/node", "/app/node_modules/@pulumi/pulumi/cmd/dynamic-provider", "--flag"]),
    ).toBeUndefined();
  });
});
