import {
  generatedData,
  generatedKeys,
  generatedValue,
  generateSecretStep,
  type KeyRule,
  rotationEvent,
  rotations,
} from "../../lib/engine/generated-secret.js";
import type { EngineView } from "../../lib/engine/view.js";

const SECRET = { apiVersion: "v1", kind: "Secret", metadata: { name: "gw-keys", namespace: "apps" } };
const KEYS: Record<string, KeyRule> = {
  username: { fixed: "litellm" },
  "master-key": { length: 40, alphabet: "alphanumeric", prefix: "sk-" },
  salt: { length: 64, alphabet: "hex" },
  token: { length: 32, alphabet: "base64url" },
};
const STEP = generateSecretStep(SECRET, KEYS, {
  description: "create Secret apps/gw-keys with generated keys (kept if it exists)",
  rotation: "the Gateway's pods read them when they start",
});
const EMITTED = [{ apiVersion: "v1", kind: "Secret", namespace: "apps", name: "gw-keys" }];
const view = (objects: Record<string, unknown>) =>
  ({ objects: new Map(Object.entries(objects)) }) as unknown as EngineView;

describe("generated Secrets", () => {
  it("draws each key by its rule: its length, alphabet and prefix; a fixed key as given", () => {
    const data = generatedData(KEYS);
    expect(data.username).toBe("litellm");
    expect(data["master-key"]).toMatch(/^sk-[A-Za-z0-9]{40}$/);
    expect(data.salt).toMatch(/^[0-9a-f]{64}$/);
    expect(data.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (const length of [1, 2, 3, 7, 33]) {
      expect(generatedValue({ length, alphabet: "hex" })).toHaveLength(length);
      expect(generatedValue({ length, alphabet: "base64url" })).toHaveLength(length);
      expect(generatedValue({ length, alphabet: "alphanumeric" })).toHaveLength(length);
    }
  });

  it("draws a new value every time, over the whole alphabet", () => {
    const drawn = Array.from({ length: 200 }, () => generatedValue({ length: 16, alphabet: "alphanumeric" }));
    expect(new Set(drawn).size).toBe(200);
    // 3,200 characters from 62: every one seen (a miss has odds below 1e-20).
    expect(new Set(drawn.join("")).size).toBe(62);
  });

  it("refuses a rule that cannot make a value", () => {
    expect(() => generatedValue({ length: 0, alphabet: "hex" })).toThrow(
      "a generated value needs a length of 1 or more, not 0",
    );
  });

  it("names the keys a rotation changes: the generated ones, in order", () => {
    expect(generatedKeys(KEYS)).toEqual(["master-key", "salt", "token"]);
  });

  it("marks a Secret it made as made before; one the plan sees gone is re-created as a rotation, said in the step", () => {
    const [step] = rotations(EMITTED, view({}), [STEP]);
    expect(step).toEqual({
      ...STEP,
      madeBefore: true,
      description:
        "re-create Secret apps/gw-keys, deleted, with a new generated master-key, salt and token (a rotation: Warning CredentialsRotated)",
    });
    expect(rotations(EMITTED, view({ "Secret/apps/gw-keys": SECRET }), [STEP])).toEqual([
      { ...STEP, madeBefore: true },
    ]);
  });

  it("leaves a Secret it never made as it is: its creation is a first create", () => {
    expect(rotations([], view({}), [STEP])).toEqual([STEP]);
  });

  it("says a rotation in one Warning Event naming the keys; each re-creation is its own Event", () => {
    const event = rotationEvent(STEP, "uid-1");
    expect(event).toMatchObject({
      type: "Warning",
      reason: "CredentialsRotated",
      message:
        "Secret apps/gw-keys was deleted and is re-created with a new generated master-key, salt and token; the Gateway's pods read them when they start",
    });
    expect(rotationEvent(STEP, "uid-2").cause).not.toBe(event.cause);
  });
});
