import { expectPlantedNowhere, mayHoldNothing } from "../support/planted-secret.js";

// The scan the cluster suites run over what the product wrote: it must be able to fail, or a leak would pass.
describe("the planted-secret scan", () => {
  const planted = 'planted-s3cret-"quoted"-7d1f';

  it("passes where the secret is in no form", () => {
    expect(() =>
      expectPlantedNowhere(planted, {
        "a resource": { spec: { credentialsSecretRef: { name: "auth" } } },
        "a log": "reconciled apps/cache",
      }),
    ).not.toThrow();
  });

  it.each([
    ["in plain text", `password=${planted}`],
    ["JSON-escaped", { status: { note: `password ${planted}` } }],
    ["base64-encoded", { data: { password: Buffer.from(planted).toString("base64") } }],
  ])("finds it %s, naming the place", (form, content) => {
    expect(() => expectPlantedNowhere(["another-s3cret", planted], { "the Events of apps": content })).toThrow(
      `planted secret 2 ${form} in the Events of apps`,
    );
  });

  it.each([
    ["nothing read", undefined],
    ["an empty list", []],
    ["an empty object", {}],
    ["blank text", " \n"],
  ])("refuses a place that holds %s: a scan of it could not fail", (_, content) => {
    expect(() => expectPlantedNowhere(planted, { "the operator's log": content, "a resource": { a: 1 } })).toThrow(
      "the operator's log",
    );
  });

  it("scans a place marked as one that may rightly hold nothing, and passes it empty", () => {
    expect(() => expectPlantedNowhere(planted, { "the Events of apps": mayHoldNothing([]) })).not.toThrow();
    expect(() => expectPlantedNowhere(planted, { "the Events of apps": mayHoldNothing([{ note: planted }]) })).toThrow(
      "planted secret 1 JSON-escaped in the Events of apps",
    );
  });

  it("refuses a secret too short to be told from other text, or none at all", () => {
    expect(() => expectPlantedNowhere("pw", { "a log": "text" })).toThrow("toBeGreaterThanOrEqual");
    expect(() => expectPlantedNowhere([], { "a log": "text" })).toThrow("toBeGreaterThan");
  });
});
