import { Testing } from "cdk8s";
import { NaviqueLicense } from "../../constructs/index.js";
import { checkInput } from "../../lib/api/validation.js";
import { LICENSE_DEFINITION, LICENSE_NAME, licenseName } from "../../lib/kinds/license/schema.js";
import { REGISTRY } from "../../lib/kinds/registry.js";
import { planRefusal } from "../support/front-end-refusals.js";

const RULE =
  "must be navique: the License is the one licence of a cluster, and the product reads no License of another name. Rename it to navique";

describe("the License's name", () => {
  it("is navique; another is refused with the name received and what to do", () => {
    expect(checkInput(licenseName, LICENSE_NAME)).toEqual({ ok: true, data: "navique" });
    expect(checkInput(licenseName, "ours", "metadata.name")).toEqual({
      ok: false,
      problems: [{ path: "metadata.name", message: `${RULE} (received "ours")` }],
    });
  });

  it("is the singleton's rule, the one every front end judges by", () => {
    expect(REGISTRY.singleton.nameRule).toBe(licenseName);
  });

  it("is stated to the apiserver on metadata.name, in the same words, the name received computed by CEL", () => {
    expect(LICENSE_DEFINITION.rootValidations).toEqual([
      {
        rule: "self.metadata.name == 'navique'",
        fieldPath: ".metadata.name",
        reason: "FieldValueInvalid",
        message: RULE,
        messageExpression: `'${RULE} (received "' + self.metadata.name + '")'`,
      },
    ]);
  });

  it("navique plan: a License of another name is refused on metadata.name", () => {
    expect(planRefusal("License", { token: "nvq1.key.e30.AAAA" }, "ours")).toEqual([
      `platform.yaml document 1 (line 1) is invalid:\n  - metadata.name: ${RULE} (received "ours")\n  Correct the document; it was not planned`,
    ]);
  });

  it("cdk8s: the NaviqueLicense construct writes no other name", () => {
    const chart = Testing.chart();
    new NaviqueLicense(chart, "licence", { token: "nvq1.key.e30.AAAA" });
    expect(Testing.synth(chart).map((o) => o.metadata.name)).toEqual([LICENSE_NAME]);
  });
});
