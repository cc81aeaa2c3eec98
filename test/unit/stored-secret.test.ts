import { isCoreSecret, storedFieldSet, storedForm } from "../../lib/engine/stored-secret.js";

describe("a Secret as stored", () => {
  it("has its stringData encoded into data, stringData winning under the same key; other kinds are left alone", () => {
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      data: { a: Buffer.from("old").toString("base64"), b: "Yg==" },
      stringData: { a: "new", c: "é" },
    };
    expect(storedForm(secret)).toEqual({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "s" },
      data: { a: Buffer.from("new").toString("base64"), b: "Yg==", c: Buffer.from("é", "utf8").toString("base64") },
    });
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, stringData: { a: "x" } };
    expect(storedForm(configMap)).toBe(configMap);
    expect(isCoreSecret({ apiVersion: "v1", kind: "Secret" })).toBe(true);
    expect(isCoreSecret({ apiVersion: "example.com/v1", kind: "Secret" })).toBe(false);
  });

  it("has the stringData keys a manager applied read under data", () => {
    expect(storedFieldSet({ "f:stringData": { "f:url": {} }, "f:type": {} })).toEqual({
      "f:data": { "f:url": {} },
      "f:type": {},
    });
    expect(storedFieldSet({ "f:data": { "f:ca": {} }, "f:stringData": { "f:url": {} } })).toEqual({
      "f:data": { "f:ca": {}, "f:url": {} },
    });
    const plain = { "f:data": { "f:ca": {} } };
    expect(storedFieldSet(plain)).toBe(plain);
  });
});
