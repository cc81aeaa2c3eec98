import * as pulumi from "@pulumi/pulumi";
import { checkInput } from "../../lib/api/validation.js";
import { GatewaySpec } from "../../lib/kinds/gateway/schema.js";
import { componentRefusal, constructRefusal, planRefusal } from "../support/front-end-refusals.js";
import { KIND_SAMPLES } from "../support/kind-samples.js";

const MODEL_ID =
  "must be a provider's model id: '/'-separated parts of letters, digits and . _ - : @, each starting with a letter, a digit or '@' (e.g. gpt-4o-mini, llama3:8b, meta-llama/Llama-3.1-8B-Instruct, anthropic.claude-3-5-sonnet-20240620-v1:0)";
const MODEL_NAME =
  "must be lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. gpt-4o)";
const API_BASE =
  "must be an http:// or https:// URL: a host, an optional port and path, no user, query or fragment, and no blank space or character a shell reads ($ ` ; | & ( ) quotes < > * ? ! ~ # { } [ ] \\) (e.g. http://ollama.ai-models:11434)";

/** A valid Gateway serving one model, that model's fields replaced by `model`'s. */
const gateway = (model: Record<string, unknown>) => ({
  ...KIND_SAMPLES.Gateway[1],
  models: [{ name: "chat", provider: "openai", model: "gpt-4o-mini", ...model }],
});

describe("a Gateway model's strings", () => {
  it.each([
    ["openai", "gpt-4o-mini"],
    ["openai", "ft:gpt-4o-mini-2024-07-18:my-org:support:9abc12"],
    ["ollama", "llama3"],
    ["ollama", "llama3.1:70b-instruct-q4_K_M"],
    ["ollama", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M"],
    ["bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"],
    ["bedrock", "us.anthropic.claude-3-5-sonnet-20241022-v2:0"],
    ["bedrock", "arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-5-sonnet-20241022-v2:0"],
    ["huggingface", "meta-llama/Llama-3.1-8B-Instruct"],
    ["vertex_ai", "claude-3-5-sonnet@20240620"],
    ["cloudflare", "@cf/meta/llama-2-7b-chat-int8"],
    ["fireworks_ai", "accounts/fireworks/models/llama-v3-70b-instruct"],
  ])("accepts the %s model %s, as LiteLLM's provider pages write it", (provider, model) => {
    expect(checkInput(GatewaySpec, gateway({ provider, model })).ok).toBe(true);
  });

  it.each([
    ["a command substitution", "$(id)"],
    ["backticks", "gpt-4o`id`"],
    ["a command separator", "gpt-4o;reboot"],
    ["a line break", "gpt-4o\nValid: True"],
    ["a blank", "gpt 4o"],
    ["a parent directory", "../../etc/passwd"],
    ["an empty part", "meta-llama//Llama"],
    ["a trailing '/'", "meta-llama/"],
  ])("refuses a model id with %s, naming the field", (_, model) => {
    expect(checkInput(GatewaySpec, gateway({ model }), "spec")).toEqual({
      ok: false,
      problems: [{ path: "spec.models[0].model", message: MODEL_ID, received: JSON.stringify(model) }],
    });
  });

  it("refuses shell text in a model name and in apiBase, naming each field", () => {
    expect(checkInput(GatewaySpec, gateway({ name: "$(id)", apiBase: "http://ollama:11434/`id`" }), "spec")).toEqual({
      ok: false,
      problems: [
        { path: "spec.models[0].name", message: MODEL_NAME, received: '"$(id)"' },
        { path: "spec.models[0].apiBase", message: API_BASE, received: '"http://ollama:11434/`id`"' },
      ],
    });
  });

  it("bounds the model id at 253 characters and the base URL at 2048", () => {
    const checked = checkInput(
      GatewaySpec,
      gateway({ model: "a".repeat(254), apiBase: `http://${"a".repeat(2042)}` }),
      "spec",
    );
    expect(checked.ok ? [] : checked.problems.map((p) => [p.path, p.message])).toEqual([
      ["spec.models[0].model", "length must be <= 253"],
      ["spec.models[0].apiBase", "length must be <= 2048"],
    ]);
  });
});

describe("a Gateway model with shell text, in every front end of the process", () => {
  beforeAll(async () => {
    // Pulumi's own mocks: a component is constructed as in a program, with no engine behind it.
    await pulumi.runtime.setMocks(
      { newResource: (args) => ({ id: `${args.name}-id`, state: args.inputs }), call: (args) => args.inputs },
      "project",
      "stack",
      true,
    );
  });

  const spec = gateway({ model: "$(id)", apiBase: "http://ollama:11434;reboot" });
  const lines = [
    `spec.models[0].model: ${MODEL_ID} (received "$(id)")`,
    `spec.models[0].apiBase: ${API_BASE} (received "http://ollama:11434;reboot")`,
  ];

  it("cdk8s synth", () => {
    expect(constructRefusal("Gateway", spec)).toEqual(lines.map((line) => `[test/judged] Gateway ${line}`));
  });

  it("the Pulumi component", () => {
    expect(componentRefusal("Gateway", spec)).toBe(
      `Gateway judged is invalid:\n${lines.map((l) => `  - ${l}`).join("\n")}`,
    );
  });

  it("navique plan", () => {
    expect(planRefusal("Gateway", spec)).toEqual([
      `platform.yaml document 1 (line 1) is invalid:\n${lines.map((l) => `  - ${l}`).join("\n")}\n  Correct the document; it was not planned`,
    ]);
  });
});
