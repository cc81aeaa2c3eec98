import { HTTP_URL, httpUrl } from "../../lib/api/http-url.js";

describe("an http(s) base URL", () => {
  it.each([
    "http://ollama.ai-models:11434",
    "http://ollama.ai-models.svc.cluster.local:11434/",
    "https://my-endpoint.openai.azure.com/",
    "https://gateway.ai.cloudflare.com/v1/account/gateway/openai",
    "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/google/models/gemini:streamGenerateContent",
    "http://10.0.0.5:8000/v1",
    "http://[fd00::1]:11434",
    "https://host/a%20b",
  ])("accepts %s", (url) => {
    expect(HTTP_URL.test(url)).toBe(true);
  });

  it.each([
    ["a command substitution", "http://host/$(id)"],
    ["backticks", "http://host/`id`"],
    ["a command separator", "http://host;reboot"],
    ["a pipe", "http://host/|sh"],
    ["an ampersand", "http://host/&"],
    ["quotes", "http://host/'x'"],
    ["a line break", "http://host/\nx"],
    ["a blank", "http://host/a b"],
    ["a tab", "http://host/\tx"],
    ["a user and password", "http://user:secret@host/"],
    ["a query", "http://host/v1?key=x"],
    ["a fragment", "http://host/#x"],
    ["another scheme", "file:///etc/passwd"],
    ["no host", "http:///v1"],
    ["a broken percent-encoding", "http://host/%2"],
    ["a backslash", "http://host\\x"],
  ])("refuses %s", (_, url) => {
    expect(HTTP_URL.test(url)).toBe(false);
  });

  it("bounds its length and says what a base URL is", () => {
    const schema = httpUrl(30, "http://ollama:11434");
    expect(schema.safeParse(`http://${"a".repeat(24)}`).error?.issues.map((i) => i.code)).toEqual(["too_big"]);
    expect(schema.safeParse("http://host/$(id)").error?.issues[0]?.message).toBe(
      "must be an http:// or https:// URL: a host, an optional port and path, no user, query or fragment, and no blank space or character a shell reads ($ ` ; | & ( ) quotes < > * ? ! ~ # { } [ ] \\) (e.g. http://ollama:11434)",
    );
  });
});
