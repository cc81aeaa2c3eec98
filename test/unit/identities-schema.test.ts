import { checkInput } from "../../lib/api/validation.js";
import { OrganizationSpec } from "../../lib/kinds/organization/schema.js";
import { TeamSpec } from "../../lib/kinds/team/schema.js";
import { UserSpec } from "../../lib/kinds/user/schema.js";

// The identities' specs as every front end parses them: what is refused, with the field and the way out.

const problems = (result: ReturnType<typeof checkInput>) =>
  result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);

describe("the identity kinds' schemas", () => {
  it("refuse a User without a usable email, naming the field and giving an example", () => {
    expect(problems(checkInput(UserSpec, { gatewayRef: { name: "llm" }, email: "ada" }, "spec"))).toEqual([
      "spec.email: must be an email address (e.g. ada@example.com)",
    ]);
  });

  it("refuse a team listed twice by one User, at the second entry", () => {
    const teams = [{ name: "search" }, { name: "search", role: "admin" }];
    expect(
      problems(checkInput(UserSpec, { gatewayRef: { name: "llm" }, email: "ada@example.com", teams }, "spec")),
    ).toEqual(['spec.teams[1].name: team "search" is listed twice: list each team once, with one role']);
  });

  it("refuse an Organization member listed twice, or without a usable email; default a member's role", () => {
    const members = [{ email: "ada@example.com" }, { email: "ada@example.com", role: "org_admin" }, { email: "grace" }];
    expect(problems(checkInput(OrganizationSpec, { gatewayRef: { name: "llm" }, members }, "spec"))).toEqual([
      "spec.members[2].email: must be an email address (e.g. ada@example.com)",
      'spec.members[1].email: member "ada@example.com" is listed twice: list each member once, with one role',
    ]);
    const one = OrganizationSpec.parse({ gatewayRef: { name: "llm" }, members: [{ email: "ada@example.com" }] });
    expect(one.members).toEqual([{ email: "ada@example.com", role: "internal_user" }]);
  });

  it("refuse a role LiteLLM does not have, and a budget period it cannot read", () => {
    const result = checkInput(
      UserSpec,
      { gatewayRef: { name: "llm" }, email: "ada@example.com", role: "admin", budgetDuration: "1mo" },
      "spec",
    );
    expect(problems(result)).toEqual([
      expect.stringMatching(/^spec\.role: .*proxy_admin.*internal_user/),
      "spec.budgetDuration: must be a LiteLLM duration: a number then s, m, h or d (e.g. 30d)",
    ]);
  });

  it("refuse a negative budget and a model name the gateway could not serve", () => {
    expect(problems(checkInput(TeamSpec, { gatewayRef: { name: "llm" }, maxBudget: -1 }, "spec"))).toEqual([
      expect.stringMatching(/^spec\.maxBudget: /),
    ]);
    expect(problems(checkInput(OrganizationSpec, { gatewayRef: { name: "llm" }, models: ["GPT 4o"] }, "spec"))).toEqual(
      [expect.stringMatching(/^spec\.models\[0\]: must be lowercase letters, digits/)],
    );
  });

  it("fill in the LiteLLM operator's own defaults: role internal_user, a team role user", () => {
    const parsed = UserSpec.parse({
      gatewayRef: { name: "llm" },
      email: "ada@example.com",
      teams: [{ name: "search" }],
    });
    expect(parsed).toMatchObject({ role: "internal_user", teams: [{ name: "search", role: "user" }] });
  });
});
